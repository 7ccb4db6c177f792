// Comma-separated tables as every Glint export writes them (RFC 4180 quoting, numbers that read back to
// the same double) and a reader for the same dialect, used by the round-trip tests and the batch tools.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace glint {

// Shortest text that reads back to the same double ("0.1", "1e-07", "12345"); "nan", "inf", "-inf".
std::string formatNumber(double value);
// The same, but never in exponent notation: for formats whose readers may not take "1e-07" (DS9).
std::string formatFixed(double value);
// A fixed number of decimals, for display ("12.346").
std::string formatDecimals(double value, int decimals);

// A field quoted when it holds a comma, a quote, a line break or leading/trailing spaces.
std::string csvField(const std::string& text);
std::string csvLine(const std::vector<std::string>& fields); // with the trailing '\n'

// Rows of fields; quoted fields may hold commas, doubled quotes and line breaks. A trailing line
// break does not start a new row. Throws InputError for an unterminated quote.
std::vector<std::vector<std::string>> parseCsv(const std::string& text);

// Builds a table with a fixed header: rows are checked against it so that columns never shift.
class CsvTable {
public:
    explicit CsvTable(std::vector<std::string> header);
    const std::vector<std::string>& header() const { return header_; }
    // Throws std::logic_error when the row does not have one field per column.
    void addRow(std::vector<std::string> row);
    std::size_t rowCount() const { return rows_.size(); }
    const std::vector<std::vector<std::string>>& rows() const { return rows_; }
    std::string text() const;

private:
    std::vector<std::string> header_;
    std::vector<std::vector<std::string>> rows_;
};

} // namespace glint
