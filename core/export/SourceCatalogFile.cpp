#include "core/export/SourceCatalogFile.h"

#include "core/export/CsvTable.h"
#include "core/export/FitsMemoryFile.h"
#include "core/export/SourceCatalogColumns.h"
#include "core/util/AtomicFile.h"
#include "core/util/EnumNames.h"
#include "core/util/Errors.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <limits>
#include <stdexcept>

namespace glint {

namespace {

constexpr EnumName<SourceCatalogFormat> kFormatNames[] = {{SourceCatalogFormat::Fits, "fits"},
                                                          {SourceCatalogFormat::Ldac, "ldac"},
                                                          {SourceCatalogFormat::Ascii, "ascii"},
                                                          {SourceCatalogFormat::Csv, "csv"}};

// The formats chosen by the path's extension (lower case, without the dot).
struct Extension {
    const char* extension;
    SourceCatalogFormat format;
};
constexpr Extension kExtensions[] = {{"fits", SourceCatalogFormat::Fits}, {"fit", SourceCatalogFormat::Fits},
                                     {"fts", SourceCatalogFormat::Fits},  {"ldac", SourceCatalogFormat::Ldac},
                                     {"cat", SourceCatalogFormat::Ascii}, {"txt", SourceCatalogFormat::Ascii},
                                     {"csv", SourceCatalogFormat::Csv}};

std::string lowerExtension(const std::string& path) {
    const std::size_t dot = path.find_last_of("./");
    if (dot == std::string::npos || path[dot] != '.') return {};
    std::string ext = path.substr(dot + 1);
    for (char& c : ext) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return ext;
}

std::size_t repeatOf(const SourceColumn& c, const SourceCatalog& catalog) {
    return c.perAperture ? catalog.apertures.size() : 1;
}

// A column's values, row after row (a vector column's elements in aperture order within a row).
std::vector<double> columnValues(const SourceColumn& c, const SourceCatalog& catalog) {
    const std::size_t repeat = repeatOf(c, catalog);
    std::vector<double> values;
    values.reserve(catalog.sources.size() * repeat);
    for (const SourceRecord& r : catalog.sources)
        for (std::size_t k = 0; k < repeat; ++k) values.push_back(c.value(r, k));
    return values;
}

// TFORMn: D for reals; I, J or K for integers (ISOAREA_IMAGE is J as SExtractor writes it, K only when an area
// exceeds 32 bits).
std::string tformOf(const SourceColumn& c, const SourceCatalog& catalog, const std::vector<double>& values) {
    char letter = 'D';
    if (c.type == SourceColumn::Type::Int16) letter = 'I';
    if (c.type == SourceColumn::Type::Int32) letter = 'J';
    if (c.type == SourceColumn::Type::Int64) {
        const bool wide = std::any_of(values.begin(), values.end(), [](double v) {
            return std::fabs(v) > double(std::numeric_limits<std::int32_t>::max());
        });
        letter = wide ? 'K' : 'J';
    }
    return std::to_string(repeatOf(c, catalog)) + letter;
}

std::string indexedKey(const char* stem, std::size_t i) { return stem + std::to_string(i); }

// SExtractor's keywords about the photometry: the zero point and the aperture diameters.
std::vector<std::string> photometryCards(const SourceCatalog& catalog) {
    std::vector<std::string> cards = {fitsNumberCard("SEXMGZPT", catalog.magZeropoint, "Zero-point used for magnitudes")};
    for (std::size_t i = 0; i < catalog.apertures.size(); ++i)
        cards.push_back(fitsNumberCard(indexedKey("SEXAPED", i + 1), catalog.apertures[i],
                                       "Aperture diameter " + std::to_string(i + 1) + " (pixels)"));
    return cards;
}

void writeEmptyPrimary(FitsMemoryFile& file) {
    int status = 0;
    fits_create_img(file.get(), BYTE_IMG, 0, nullptr, &status);
    file.check(status, "primary HDU");
}

void writeObjectTable(FitsMemoryFile& file, const SourceCatalog& catalog, const char* extname, bool withKeys) {
    fitsfile* f = file.get();
    const std::vector<SourceColumn> columns = sourceColumns(catalog);
    std::vector<std::vector<double>> values;
    std::vector<std::string> forms;
    for (const SourceColumn& c : columns) {
        values.push_back(columnValues(c, catalog));
        forms.push_back(tformOf(c, catalog, values.back()));
    }
    std::vector<char*> ttype, tform, tunit;
    for (std::size_t i = 0; i < columns.size(); ++i) {
        ttype.push_back(const_cast<char*>(columns[i].name));
        tform.push_back(forms[i].data());
        tunit.push_back(const_cast<char*>(columns[i].unit));
    }
    const auto rows = static_cast<LONGLONG>(catalog.sources.size());
    int status = 0;
    fits_create_tbl(f, BINARY_TBL, rows, static_cast<int>(columns.size()), ttype.data(), tform.data(), tunit.data(),
                    extname, &status);
    file.check(status, "table");
    for (std::size_t i = 0; i < columns.size(); ++i) {
        const int col = static_cast<int>(i + 1);
        const SourceColumn& c = columns[i];
        fits_modify_comment(f, indexedKey("TTYPE", i + 1).c_str(), c.description, &status);
        const std::string tdisp = c.tdisp();
        fits_write_key(f, TSTRING, indexedKey("TDISP", i + 1).c_str(), const_cast<char*>(tdisp.c_str()),
                       "display format", &status);
        std::vector<double>& v = values[i];
        if (v.empty()) continue;
        if (c.type == SourceColumn::Type::Double) {
            fits_write_col(f, TDOUBLE, col, 1, 1, static_cast<LONGLONG>(v.size()), v.data(), &status);
        } else {
            std::vector<LONGLONG> whole(v.begin(), v.end());
            fits_write_col(f, TLONGLONG, col, 1, 1, static_cast<LONGLONG>(whole.size()), whole.data(), &status);
        }
        file.check(status, c.name);
    }
    if (withKeys)
        for (const std::string& card : photometryCards(catalog)) fits_write_record(f, card.c_str(), &status);
    file.check(status, "keywords");
}

// LDAC_IMHEAD: one row, one column "Field Header Card" of n 80-character cards (END included), as SExtractor
// writes it (TFORM1 = '(80 n)A', TDIM1 = '(80, n)').
void writeImageHeaderTable(FitsMemoryFile& file, const SourceCatalog& catalog, const FitsHeaderContext& header) {
    FitsHeaderContext context = header;
    for (const std::string& card : photometryCards(catalog)) setCard(context, card);
    std::string text;
    const std::vector<std::string> cards = imageHeaderCards(context);
    for (const std::string& card : cards) text += card;
    const std::string form = std::to_string(text.size()) + "A";
    char* ttype[] = {const_cast<char*>("Field Header Card")};
    char* tform[] = {const_cast<char*>(form.c_str())};
    char* tunit[] = {const_cast<char*>("")};
    int status = 0;
    fitsfile* f = file.get();
    fits_create_tbl(f, BINARY_TBL, 1, 1, ttype, tform, tunit, "LDAC_IMHEAD", &status);
    const std::string tdim = "(80, " + std::to_string(cards.size()) + ")";
    fits_write_key(f, TSTRING, "TDIM1", const_cast<char*>(tdim.c_str()), "dimensions of field 1", &status);
    fits_write_tblbytes(f, 1, 1, static_cast<LONGLONG>(text.size()),
                        reinterpret_cast<unsigned char*>(text.data()), &status);
    file.check(status, "LDAC_IMHEAD");
}

std::string fitsBytes(const SourceCatalog& catalog, const FitsHeaderContext* ldacHeader) {
    FitsMemoryFile file(ldacHeader ? "the FITS_LDAC catalogue" : "the FITS catalogue");
    writeEmptyPrimary(file);
    if (ldacHeader) writeImageHeaderTable(file, catalog, *ldacHeader);
    writeObjectTable(file, catalog, ldacHeader ? "LDAC_OBJECTS" : "SOURCES", !ldacHeader);
    return file.bytes();
}

std::string asciiBytes(const SourceCatalog& catalog) {
    const std::vector<SourceColumn> columns = sourceColumns(catalog);
    std::string out;
    std::size_t number = 1;
    for (const SourceColumn& c : columns) {
        char line[200];
        std::snprintf(line, sizeof line, "# %3zu %-22.22s %-58.58s", number, c.name, c.description);
        out += line;
        if (*c.unit) out += std::string(" [") + c.unit + "]";
        out += '\n';
        number += repeatOf(c, catalog);
    }
    for (const SourceRecord& r : catalog.sources) {
        std::string row;
        for (const SourceColumn& c : columns)
            for (std::size_t k = 0; k < repeatOf(c, catalog); ++k) {
                if (!row.empty()) row += ' ';
                row += c.ascii(c.value(r, k));
            }
        out += row + '\n';
    }
    return out;
}

std::string csvBytes(const SourceCatalog& catalog) {
    const std::vector<SourceColumn> columns = sourceColumns(catalog);
    std::vector<std::string> header;
    for (const SourceColumn& c : columns)
        for (std::size_t k = 0; k < repeatOf(c, catalog); ++k)
            header.push_back(k == 0 ? std::string(c.name) : std::string(c.name) + "_" + std::to_string(k));
    CsvTable table(header);
    for (const SourceRecord& r : catalog.sources) {
        std::vector<std::string> row;
        for (const SourceColumn& c : columns)
            for (std::size_t k = 0; k < repeatOf(c, catalog); ++k) {
                const double v = c.value(r, k);
                if (c.type != SourceColumn::Type::Double) row.push_back(std::to_string(static_cast<long long>(v)));
                else row.push_back(std::isnan(v) ? std::string() : formatNumber(v));
            }
        table.addRow(std::move(row));
    }
    return table.text();
}

} // namespace

SourceCatalogFormat sourceCatalogFormat(const std::string& path, const std::string& formatOption) {
    if (!formatOption.empty()) return parseEnumName(kFormatNames, formatOption, "--catalog-format");
    const std::string ext = lowerExtension(path);
    for (const Extension& e : kExtensions)
        if (ext == e.extension) return e.format;
    throw UsageError("option '--catalog' needs a file ending in .fits, .fit, .fts, .ldac, .cat, .txt or .csv, or "
                     "--catalog-format " + enumNameList(kFormatNames) + " (got '" + path + "')");
}

const char* sourceCatalogFormatName(SourceCatalogFormat format) { return enumName(kFormatNames, format); }

std::string sourceCatalogBytes(const SourceCatalog& catalog, SourceCatalogFormat format,
                               const FitsHeaderContext* imageHeader) {
    switch (format) {
    case SourceCatalogFormat::Fits: return fitsBytes(catalog, nullptr);
    case SourceCatalogFormat::Ldac:
        if (!imageHeader) throw std::invalid_argument("a FITS_LDAC catalogue needs the image's header");
        return fitsBytes(catalog, imageHeader);
    case SourceCatalogFormat::Ascii: return asciiBytes(catalog);
    case SourceCatalogFormat::Csv: break;
    }
    return csvBytes(catalog);
}

void writeSourceCatalog(const SourceCatalog& catalog, const std::string& path, SourceCatalogFormat format,
                        const FitsHeaderContext* imageHeader) {
    writeFileAtomically(path, sourceCatalogBytes(catalog, format, imageHeader));
}

} // namespace glint
