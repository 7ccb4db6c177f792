#include "core/export/CsvTable.h"

#include "core/util/Errors.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace glint {

namespace {

std::string nonFinite(double value) {
    if (std::isnan(value)) return "nan";
    return value < 0 ? "-inf" : "inf";
}

} // namespace

std::string formatNumber(double value) {
    if (!std::isfinite(value)) return nonFinite(value);
    char buffer[64];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, value);
    return std::string(buffer, r.ptr);
}

std::string formatFixed(double value) {
    if (!std::isfinite(value)) return nonFinite(value);
    // Fixed notation of a double can need over 300 digits (1e300); such values never reach a region file
    // but the buffer must still hold them.
    char buffer[400];
    const auto r = std::to_chars(buffer, buffer + sizeof buffer, value, std::chars_format::fixed);
    if (r.ec != std::errc()) return formatNumber(value);
    return std::string(buffer, r.ptr);
}

std::string formatDecimals(double value, int decimals) {
    if (!std::isfinite(value)) return nonFinite(value);
    char buffer[400];
    std::snprintf(buffer, sizeof buffer, "%.*f", decimals, value);
    return buffer;
}

std::string csvField(const std::string& text) {
    const bool edgeSpace = !text.empty() && (text.front() == ' ' || text.back() == ' ');
    if (!edgeSpace && text.find_first_of(",\"\r\n") == std::string::npos) return text;
    std::string out = "\"";
    for (char c : text) {
        if (c == '"') out += '"';
        out += c;
    }
    return out + '"';
}

std::string csvLine(const std::vector<std::string>& fields) {
    std::string line;
    for (std::size_t i = 0; i < fields.size(); ++i) {
        if (i) line += ',';
        line += csvField(fields[i]);
    }
    return line + '\n';
}

std::vector<std::vector<std::string>> parseCsv(const std::string& text) {
    std::vector<std::vector<std::string>> rows;
    std::vector<std::string> row;
    std::string field;
    bool quoted = false, fieldStarted = false;
    auto endField = [&] {
        row.push_back(std::move(field));
        field.clear();
        fieldStarted = false;
    };
    auto endRow = [&] {
        endField();
        rows.push_back(std::move(row));
        row.clear();
    };
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"') {
                if (i + 1 < text.size() && text[i + 1] == '"') {
                    field += '"';
                    ++i;
                } else {
                    quoted = false;
                }
            } else {
                field += c;
            }
            continue;
        }
        if (c == '"' && !fieldStarted) {
            quoted = true;
            fieldStarted = true;
        } else if (c == ',') {
            endField();
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            endRow();
        } else {
            field += c;
            fieldStarted = true;
        }
    }
    if (quoted) throw InputError("CSV text ends inside a quoted field");
    if (fieldStarted || !row.empty()) endRow();
    return rows;
}

CsvTable::CsvTable(std::vector<std::string> header) : header_(std::move(header)) {}

void CsvTable::addRow(std::vector<std::string> row) {
    if (row.size() != header_.size())
        throw std::logic_error("CSV row has " + std::to_string(row.size()) + " fields for " +
                               std::to_string(header_.size()) + " columns");
    rows_.push_back(std::move(row));
}

std::string CsvTable::text() const {
    std::string out = csvLine(header_);
    for (const auto& row : rows_) out += csvLine(row);
    return out;
}

} // namespace glint
