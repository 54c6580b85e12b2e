"""Pattern → NFA states (Flink 1.11's ``NFACompiler.NFAFactoryCompiler`` and ``NFAStateNameHandler``).

The pattern is walked from its last part to its first: the ending state ``$endState$`` first, then
each part becomes one or more states with TAKE / IGNORE / PROCEED edges (singleton, optional, times,
looping, groups, NOT parts as stop states), and the first part's state is made the start state.
The pattern is read through its attributes (``name``, ``previous``, ``condition``, ``quantifier``,
``get_times()``, ``until_condition``, ``window_time``, ``raw_pattern`` for groups), so this layer does not
import the API.
"""

from __future__ import annotations

import functools
from typing import Any

from pyflowkit.errors import MalformedPatternException
from pyflowkit.operators.cep.conditions import BooleanConditions, RichAndCondition, RichNotCondition
from pyflowkit.operators.cep.quantifier import ConsumingStrategy, QuantifierProperty
from pyflowkit.operators.cep.state import State, StateTransitionAction, StateType

ENDING_STATE_NAME = "$endState$"
STATE_NAME_DELIM = ":"


@functools.lru_cache(maxsize=4096)
def original_name(internal_name: str) -> str:
    """``NFAStateNameHandler.getOriginalNameFromInternal``: the name before ``:<n>``."""
    return internal_name.split(STATE_NAME_DELIM)[0]


class NFAStateNameHandler:
    """Flink's ``NFAStateNameHandler``: unique pattern names, unique internal state names."""

    def __init__(self) -> None:
        self.used_names: dict[str, int] = {}

    def check_name_uniqueness(self, name: str) -> None:
        if name in self.used_names:
            raise MalformedPatternException(
                f"Duplicate pattern name: {name}. Names must be unique."
            )
        self.used_names[name] = 0

    def clear(self) -> None:
        self.used_names.clear()

    def get_unique_internal_name(self, base_name: str) -> str:
        counter = self.used_names.get(base_name, 0)
        self.used_names[base_name] = counter + 1
        return base_name if counter == 0 else f"{base_name}{STATE_NAME_DELIM}{counter}"


def _and(a: Any, b: Any) -> Any:
    return RichAndCondition(a if a is not None else BooleanConditions.true_function(), b)


def _not(c: Any) -> Any:
    return RichNotCondition(c if c is not None else BooleanConditions.true_function())


def _is_group(pattern: Any) -> bool:
    return getattr(pattern, "raw_pattern", None) is not None


class NFAFactoryCompiler:
    """Flink's ``NFACompiler.NFAFactoryCompiler``: compiles one pattern into ``states``."""

    def __init__(self, pattern: Any) -> None:
        self.name_handler = NFAStateNameHandler()
        self.stop_states: dict[str, State] = {}
        self.states: list[State] = []
        self.window_time = 0
        self.current_group_pattern: Any = None
        self.first_of_loop: dict[int, bool] = {}
        self.current_pattern = pattern
        self.following_pattern: Any = None
        self.after_match_skip_strategy = pattern.after_match_skip_strategy
        self.original_state_map: dict[str, State] = {}

    # ---- entry point ----
    def compile_factory(self) -> None:
        if self.current_pattern.quantifier.consuming_strategy == ConsumingStrategy.NOT_FOLLOW:
            raise MalformedPatternException(
                "NotFollowedBy is not supported as a last part of a Pattern!"
            )
        self._check_pattern_name_uniqueness()
        self._check_pattern_skip_strategy()
        sink = self._create_ending_state()
        sink = self._create_middle_states(sink)
        self._create_start_state(sink)

    def _check_pattern_skip_strategy(self) -> None:
        name = self.after_match_skip_strategy.get_pattern_name()
        if name is None:
            return
        pattern = self.current_pattern
        while pattern.previous is not None and pattern.name != name:
            pattern = pattern.previous
        if pattern.name != name:
            raise MalformedPatternException(
                "The pattern name specified in AfterMatchSkipStrategy can not be found in the "
                "given Pattern"
            )

    def _check_pattern_name_uniqueness(self) -> None:
        self.name_handler.check_name_uniqueness(ENDING_STATE_NAME)
        p = self.current_pattern
        while p is not None:
            self._check_name(p)
            p = p.previous
        self.name_handler.clear()

    def _check_name(self, pattern: Any) -> None:
        if _is_group(pattern):
            p = pattern.raw_pattern
            while p is not None:
                self._check_name(p)
                p = p.previous
        else:
            self.name_handler.check_name_uniqueness(pattern.name)

    # ---- NOT conditions ----
    def _current_not_conditions(self) -> list[tuple[Any, str]]:
        """``getCurrentNotCondition``: NOT parts reachable backwards through optional parts."""
        out = []
        previous = self.current_pattern
        while previous.previous is not None and (
            previous.previous.quantifier.has_property(QuantifierProperty.OPTIONAL)
            or previous.previous.quantifier.consuming_strategy == ConsumingStrategy.NOT_FOLLOW
        ):
            previous = previous.previous
            if previous.quantifier.consuming_strategy == ConsumingStrategy.NOT_FOLLOW:
                out.append((self._take_condition(previous), previous.name))
        return out

    # ---- states ----
    def _create_state(self, name: str, state_type: StateType) -> State:
        state = State(self.name_handler.get_unique_internal_name(name), state_type)
        self.states.append(state)
        return state

    def _create_ending_state(self) -> State:
        end = self._create_state(ENDING_STATE_NAME, StateType.Final)
        wt = self.current_pattern.window_time
        self.window_time = wt if wt is not None else 0
        return end

    def _create_middle_states(self, sink: State) -> State:
        last_sink = sink
        while self.current_pattern.previous is not None:
            strategy = self.current_pattern.quantifier.consuming_strategy
            if strategy == ConsumingStrategy.NOT_FOLLOW:
                pass  # NOT-followed-by parts become edge conditions
            elif strategy == ConsumingStrategy.NOT_NEXT:
                not_next = self._create_state(self.current_pattern.name, StateType.Normal)
                not_condition = self._take_condition(self.current_pattern)
                stop = self._create_stop_state(not_condition, self.current_pattern.name)
                if last_sink.is_final():
                    not_next.add_ignore(_not(not_condition), last_sink)  # no PROCEED to final
                else:
                    not_next.add_proceed(last_sink, _not(not_condition))
                not_next.add_proceed(stop, not_condition)
                last_sink = not_next
            else:
                last_sink = self._convert_pattern(last_sink)
            self.following_pattern = self.current_pattern
            self.current_pattern = self.current_pattern.previous
            wt = self.current_pattern.window_time
            if wt is not None and wt < self.window_time:
                self.window_time = wt  # the smallest within() of all parts
        return last_sink

    def _create_start_state(self, sink: State) -> State:
        begin = self._convert_pattern(sink)
        begin.make_start()
        return begin

    def _convert_pattern(self, sink: State) -> State:
        q = self.current_pattern.quantifier
        if q.has_property(QuantifierProperty.LOOPING):
            self._set_first_of_loop(False)
            s = self._copy_without_transitive_nots(sink)
            looping = self._create_looping(s)
            self._set_first_of_loop(True)
            last = self._create_times_state(looping, sink, self.current_pattern.get_times())
        elif q.has_property(QuantifierProperty.TIMES):
            last = self._create_times_state(sink, sink, self.current_pattern.get_times())
        else:
            last = self._create_singleton_state(sink)
        self._add_stop_states(last)
        return last

    def _create_stop_state(self, not_condition: Any, name: str) -> State:
        stop = self.stop_states.get(name)
        if stop is None:
            stop = self._create_state(name, StateType.Stop)
            stop.add_take(not_condition)
            self.stop_states[name] = stop
        return stop

    def _copy_without_transitive_nots(self, sink: State) -> State:
        nots = self._current_not_conditions()
        if not nots or not self.current_pattern.quantifier.has_property(
            QuantifierProperty.OPTIONAL
        ):
            return sink
        copy = self._create_state(sink.name, sink.state_type)
        for t in sink.state_transitions:
            if t.action is StateTransitionAction.PROCEED:
                target = t.target_state
                remove = False
                if target.is_stop():
                    remove = any(target.name == name for _, name in nots)
                else:
                    target = self._copy_without_transitive_nots(t.target_state)
                if not remove:
                    copy.add_state_transition(t.action, target, t.condition)
            else:
                target = copy if t.target_state is t.source_state else t.target_state
                copy.add_state_transition(t.action, target, t.condition)
        return copy

    def _copy(self, state: State) -> State:
        copy = self._create_state(original_name(state.name), state.state_type)
        for t in state.state_transitions:
            target = copy if t.target_state is t.source_state else t.target_state
            copy.add_state_transition(t.action, target, t.condition)
        return copy

    def _add_stop_states(self, state: State) -> None:
        for condition, name in self._current_not_conditions():
            state.add_proceed(self._create_stop_state(condition, name), condition)

    def _add_stop_state_to_looping(self, looping: State) -> None:
        following = self.following_pattern
        if (
            following is not None
            and following.quantifier.consuming_strategy == ConsumingStrategy.NOT_FOLLOW
        ):
            condition = self._take_condition(following)
            looping.add_proceed(self._create_stop_state(condition, following.name), condition)

    def _create_times_state(self, sink: State, proceed: State, times: Any) -> State:
        last_sink = sink
        self._set_first_of_loop(False)
        until = self.current_pattern.until_condition
        inner_ignore = self._extend_with_until(
            self._inner_ignore_condition(self.current_pattern), until, False
        )
        take = self._extend_with_until(self._take_condition(self.current_pattern), until, True)
        q = self.current_pattern.quantifier
        if q.has_property(QuantifierProperty.GREEDY) and times.from_ != times.to:
            if until is not None:
                self.original_state_map[sink.name] = self._copy(sink)
            self._update_with_greedy_condition(sink, take)
        for _ in range(times.from_, times.to):
            last_sink = self._create_singleton_state(last_sink, proceed, take, inner_ignore, True)
            self._add_stop_state_to_looping(last_sink)
        for _ in range(times.from_ - 1):
            last_sink = self._create_singleton_state(last_sink, None, take, inner_ignore, False)
            self._add_stop_state_to_looping(last_sink)
        self._set_first_of_loop(True)
        return self._create_singleton_state(
            last_sink,
            proceed,
            take,
            self._ignore_condition(self.current_pattern),
            q.has_property(QuantifierProperty.OPTIONAL),
        )

    def _set_first_of_loop(self, first: bool) -> None:
        if _is_group(self.current_pattern):
            self.first_of_loop[id(self.current_pattern)] = first

    def _is_current_group_first_of_loop(self) -> bool:
        return self.first_of_loop.get(id(self.current_group_pattern), True)

    def _head_of_group(self, pattern: Any) -> bool:
        return self.current_group_pattern is not None and pattern.previous is None

    def _is_pattern_optional(self, pattern: Any) -> bool:
        if self._head_of_group(pattern):
            return self._is_current_group_first_of_loop() and (
                self.current_group_pattern.quantifier.has_property(QuantifierProperty.OPTIONAL)
            )
        return pattern.quantifier.has_property(QuantifierProperty.OPTIONAL)

    def _create_singleton_state(
        self,
        sink: State,
        proceed: State | None = None,
        take: Any = None,
        ignore: Any = None,
        optional: bool | None = None,
        *,
        defaults: bool = False,
    ) -> State:
        if optional is None:  # createSingletonState(sinkState)
            proceed = sink
            take = self._take_condition(self.current_pattern)
            ignore = self._ignore_condition(self.current_pattern)
            optional = self._is_pattern_optional(self.current_pattern)
        pattern = self.current_pattern
        if _is_group(pattern):
            return self._create_group_pattern_state(pattern, sink, proceed, optional)
        singleton = self._create_state(pattern.name, StateType.Normal)
        s = self._copy_without_transitive_nots(sink)
        singleton.add_take(take, s)
        proceed_condition = self._true_function()
        if optional and not self._head_of_group(pattern):
            if pattern.quantifier.has_property(QuantifierProperty.GREEDY):
                until = pattern.until_condition
                if until is not None:
                    singleton.add_proceed(
                        self.original_state_map[proceed.name],  # type: ignore[union-attr]
                        _and(proceed_condition, until),
                    )
                singleton.add_proceed(
                    proceed,  # type: ignore[arg-type]
                    _and(proceed_condition, _not(until))
                    if until is not None
                    else proceed_condition,
                )
            else:
                singleton.add_proceed(proceed, proceed_condition)  # type: ignore[arg-type]
        if ignore is not None:
            if optional:
                ignore_state = self._create_state(pattern.name, StateType.Normal)
                ignore_state.add_take(take, s)
                ignore_state.add_ignore(ignore)
                self._add_stop_states(ignore_state)
            else:
                ignore_state = singleton
            singleton.add_ignore(ignore, ignore_state)
        return singleton

    def _enter_group(self, group: Any) -> tuple[Any, Any, Any]:
        saved = (self.current_pattern, self.following_pattern, self.current_group_pattern)
        self.current_group_pattern = group
        self.current_pattern = group.raw_pattern
        return saved

    def _leave_group(self, saved: tuple[Any, Any, Any]) -> None:
        self.current_pattern, self.following_pattern, self.current_group_pattern = saved

    def _create_group_pattern_state(
        self, group: Any, sink: State, proceed: State | None, optional: bool
    ) -> State:
        proceed_condition = self._true_function()
        saved = self._enter_group(group)
        last = self._create_middle_states(sink)
        last = self._convert_pattern(last)
        if optional:
            last.add_proceed(proceed, proceed_condition)  # type: ignore[arg-type]
        self._leave_group(saved)
        return last

    def _create_looping_group_pattern_state(self, group: Any, sink: State) -> State:
        proceed_condition = self._true_function()
        dummy = self._create_state(self.current_pattern.name, StateType.Normal)
        saved = self._enter_group(group)
        last = self._create_middle_states(dummy)
        last = self._convert_pattern(last)
        last.add_proceed(sink, proceed_condition)
        dummy.add_proceed(last, proceed_condition)
        self._leave_group(saved)
        return last

    def _create_looping(self, sink: State) -> State:
        pattern = self.current_pattern
        if _is_group(pattern):
            return self._create_looping_group_pattern_state(pattern, sink)
        until = pattern.until_condition
        ignore = self._extend_with_until(self._inner_ignore_condition(pattern), until, False)
        take = self._extend_with_until(self._take_condition(pattern), until, True)
        proceed_condition = self._true_function()
        looping = self._create_state(pattern.name, StateType.Normal)
        if pattern.quantifier.has_property(QuantifierProperty.GREEDY):
            if until is not None:
                sink_copy = self._copy(sink)
                looping.add_proceed(sink_copy, _and(proceed_condition, until))
                self.original_state_map[sink.name] = sink_copy
            looping.add_proceed(
                sink,
                _and(proceed_condition, _not(until)) if until is not None else proceed_condition,
            )
            self._update_with_greedy_condition(sink, self._take_condition(pattern))
        else:
            looping.add_proceed(sink, proceed_condition)
        looping.add_take(take)
        self._add_stop_state_to_looping(looping)
        if ignore is not None:
            ignore_state = self._create_state(pattern.name, StateType.Normal)
            ignore_state.add_take(take, looping)
            ignore_state.add_ignore(ignore)
            looping.add_ignore(ignore, ignore_state)
            self._add_stop_state_to_looping(ignore_state)
        return looping

    # ---- conditions ----
    def _extend_with_until(self, condition: Any, until: Any, is_take: bool) -> Any:
        if until is not None and condition is not None:
            return RichAndCondition(_not(until), condition)
        if until is not None and is_take:
            return _not(until)
        return condition

    def _strategy_ignore(self, strategy: ConsumingStrategy, pattern: Any) -> Any:
        if strategy == ConsumingStrategy.SKIP_TILL_NEXT:
            return _not(pattern.condition)
        if strategy == ConsumingStrategy.SKIP_TILL_ANY:
            return BooleanConditions.true_function()
        return None  # STRICT

    def _group_until(self, condition: Any, is_take: bool) -> Any:
        group = self.current_group_pattern
        if group is not None and group.until_condition is not None:
            return self._extend_with_until(condition, group.until_condition, is_take)
        return condition

    def _inner_ignore_condition(self, pattern: Any) -> Any:
        strategy = pattern.quantifier.inner_consuming_strategy
        if self._head_of_group(pattern):
            strategy = self.current_group_pattern.quantifier.inner_consuming_strategy
        return self._group_until(self._strategy_ignore(strategy, pattern), False)

    def _ignore_condition(self, pattern: Any) -> Any:
        strategy = pattern.quantifier.consuming_strategy
        if self._head_of_group(pattern):
            gq = self.current_group_pattern.quantifier
            strategy = (
                gq.consuming_strategy
                if self._is_current_group_first_of_loop()
                else gq.inner_consuming_strategy
            )
        return self._group_until(self._strategy_ignore(strategy, pattern), False)

    def _take_condition(self, pattern: Any) -> Any:
        return self._group_until(pattern.condition, True)

    def _true_function(self) -> Any:
        return self._group_until(BooleanConditions.true_function(), True)

    def _update_with_greedy_condition(self, state: State, take: Any) -> None:
        for t in state.state_transitions:
            t.condition = _and(t.condition, _not(take))


def compile_states(pattern: Any) -> tuple[list[State], int]:
    """``NFACompiler.compileFactory``: the NFA's states and its window length in ms (0 = none)."""
    compiler = NFAFactoryCompiler(pattern)
    compiler.compile_factory()
    return compiler.states, compiler.window_time
