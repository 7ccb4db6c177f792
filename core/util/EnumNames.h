// One table per enumeration that has names on the command line, in files or in the window: the name of a
// value and the value of a name come from the same table, so the two can never disagree.
//
//   constexpr EnumName<DisplayScale> kScaleNames[] = {{DisplayScale::Linear, "linear"}, ...};
//   const char* displayScaleName(DisplayScale s) { return enumName(kScaleNames, s); }
//   DisplayScale parseDisplayScale(const std::string& n) { return parseEnumName(kScaleNames, n, "display scale"); }
#pragma once

#include "core/util/Errors.h"

#include <cstddef>
#include <string>
#include <string_view>

namespace glint {

template <class E>
struct EnumName {
    E value;
    const char* name;
};

// The name of value; the table's first name for a value the table lacks (a corrupt enum).
template <class E, std::size_t N>
constexpr const char* enumName(const EnumName<E> (&table)[N], E value) {
    for (const auto& entry : table)
        if (entry.value == value) return entry.name;
    return table[0].name;
}

// "a, b or c": the names, for messages.
template <class E, std::size_t N>
std::string enumNameList(const EnumName<E> (&table)[N]) {
    std::string list;
    for (std::size_t i = 0; i < N; ++i) {
        if (i > 0) list += i + 1 == N ? " or " : ", ";
        list += table[i].name;
    }
    return list;
}

// The value named text; UsageError "unknown <what> 'text' (expected a, b or c)" otherwise.
template <class E, std::size_t N>
E parseEnumName(const EnumName<E> (&table)[N], std::string_view text, std::string_view what) {
    for (const auto& entry : table)
        if (text == entry.name) return entry.value;
    throw UsageError("unknown " + std::string(what) + " '" + std::string(text) + "' (expected " + enumNameList(table) +
                     ")");
}

} // namespace glint
