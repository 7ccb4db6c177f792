// A parameter that may be decided from the image: a value, `auto` (the algorithm's resolve step turns it into a
// value before any backend is chosen) or, where the parameter allows it, none. Never a magic number.
#pragma once

#include <stdexcept>

namespace glint {

template <class T>
class AutoValue {
public:
    enum class State { Value, Auto, None };

    AutoValue() = default;
    static AutoValue value(T v) { return AutoValue(State::Value, v); }
    static AutoValue automatic() { return AutoValue(State::Auto, T{}); }
    static AutoValue none() { return AutoValue(State::None, T{}); }

    State state() const { return state_; }
    bool isValue() const { return state_ == State::Value; }
    bool isAuto() const { return state_ == State::Auto; }
    bool isNone() const { return state_ == State::None; }
    // The value; std::logic_error when there is none (an unresolved auto reaching code that needs a value).
    const T& get() const {
        if (state_ != State::Value) throw std::logic_error(state_ == State::Auto ? "an automatic value was not resolved" : "no value");
        return value_;
    }
    // The value, or `fallback` when none (an auto is a logic_error, as in get()).
    T valueOr(T fallback) const {
        if (state_ == State::None) return fallback;
        return get();
    }
    bool operator==(const AutoValue& o) const { return state_ == o.state_ && (state_ != State::Value || value_ == o.value_); }

private:
    AutoValue(State s, T v) : state_(s), value_(v) {}
    State state_ = State::None;
    T value_{};
};

} // namespace glint
