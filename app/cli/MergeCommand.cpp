// glint-cli merge OUT.csv PART.csv...: the CSVs of the shards of one batch run joined into the CSV the run
// would have written unsharded: one head, rows in the order of the sorted file list. Parts of different
// runs (parameters, load options, file lists, shard counts), a shard given twice and a missing shard are
// refused with one line naming them (exit 3); nothing is written then.
#include "app/cli/BatchJournal.h"
#include "app/cli/Commands.h"
#include "core/export/CsvTable.h"
#include "core/params/Options.h"
#include "core/util/AtomicFile.h"
#include "core/util/Errors.h"
#include "core/util/Printable.h"

#include <algorithm>
#include <iostream>
#include <map>
#include <numeric>

namespace glint::cli {

namespace {

// "I/N" of a part's "# batch:" line.
std::pair<long long, long long> shardOf(const ParsedBatchCsv& part, const std::string& path) {
    const std::string s = part.head.run["shard"].get<std::string>();
    const auto slash = s.find('/');
    try {
        if (slash != std::string::npos) {
            const long long i = std::stoll(s.substr(0, slash)), n = std::stoll(s.substr(slash + 1));
            if (n >= 1 && i >= 1 && i <= n) return {i, n};
        }
    } catch (const std::exception&) {
    }
    throw InputError("'" + path + "' has a damaged shard '" + s + "' in its '# batch:' line");
}

std::string listOf(const std::vector<long long>& shards, long long n) {
    std::string s;
    for (std::size_t k = 0; k < shards.size(); ++k) {
        if (k == 8) return s + ", ... (" + std::to_string(shards.size()) + " in all)";
        s += (k ? ", " : "") + std::to_string(shards[k]) + "/" + std::to_string(n);
    }
    return s;
}

} // namespace

int runMerge(const std::vector<std::string>& args) {
    const ParsedArgs a = parseArgs(args, {{}, {}});
    if (a.positionals.size() < 2) throw UsageError("merge needs OUT.csv and at least one PART.csv");
    const std::string out = a.positionals[0];
    const std::vector<std::string> paths(a.positionals.begin() + 1, a.positionals.end());

    std::vector<ParsedBatchCsv> parts;
    for (const std::string& path : paths) parts.push_back(readBatchCsv(path));
    const ParsedBatchCsv& first = parts.front();
    const long long n = shardOf(first, paths[0]).second;
    std::map<long long, std::string> byShard; // shard index -> its part
    for (std::size_t p = 0; p < parts.size(); ++p) {
        const auto [i, count] = shardOf(parts[p], paths[p]);
        if (parts[p].head.parameters != first.head.parameters)
            throw InputError("'" + paths[p] + "' and '" + paths[0] + "' come from runs with different parameters");
        if (parts[p].head.mergeKey() != first.head.mergeKey()) {
            std::string what = "options, file lists or columns";
            Json x = parts[p].head.run, y = first.head.run;
            if (x.value("list", "") != y.value("list", "") || x.value("files", 0) != y.value("files", 0))
                what = "file lists (" + x["files"].dump() + " and " + y["files"].dump() + " files)";
            else if (parts[p].head.header != first.head.header)
                what = "columns";
            else
                what = "options (" + parts[p].head.resumeKey().substr(parts[p].head.parameters.size() + 1) + ")";
            throw InputError("'" + paths[p] + "' and '" + paths[0] + "' come from different runs: different " +
                             printableMessage(what, 200));
        }
        if (count != n)
            throw InputError("'" + paths[p] + "' is shard " + std::to_string(i) + "/" + std::to_string(count) +
                             " but '" + paths[0] + "' is of " + std::to_string(n) + " shards");
        const auto [it, fresh] = byShard.emplace(i, paths[p]);
        if (!fresh)
            throw InputError("shard " + std::to_string(i) + "/" + std::to_string(n) + " is given twice: '" + it->second +
                             "' and '" + paths[p] + "'");
    }
    std::vector<long long> missing;
    for (long long i = 1; i <= n; ++i)
        if (!byShard.count(i)) missing.push_back(i);
    if (!missing.empty())
        throw InputError(std::string(missing.size() == 1 ? "shard " : "shards ") + listOf(missing, n) +
                         (missing.size() == 1 ? " is" : " are") + " missing");

    // Each file's rows stay together and in their order; the files in the order of the sorted list.
    struct Row {
        const std::vector<std::string>* fields;
        std::size_t part;
    };
    std::vector<Row> rows;
    for (std::size_t p = 0; p < parts.size(); ++p)
        for (const auto& r : parts[p].rows) rows.push_back({&r, p});
    std::stable_sort(rows.begin(), rows.end(),
                     [](const Row& x, const Row& y) { return x.fields->front() < y.fields->front(); });
    for (std::size_t k = 1; k < rows.size(); ++k)
        if (rows[k].part != rows[k - 1].part && rows[k].fields->front() == rows[k - 1].fields->front())
            throw InputError("'" + printableMessage(rows[k].fields->front(), 200) + "' is in both '" +
                             paths[rows[k - 1].part] + "' and '" + paths[rows[k].part] + "': the shards overlap");

    BatchHead head = first.head;
    head.run["shard"] = "1/1";
    std::string text = head.text();
    for (const Row& r : rows) text += csvLine(*r.fields);
    OutputTransaction publish;
    if (out == "-") writeStandardOutput(text);
    else writeFileAtomically(out, text);
    publish.commit();
    std::cerr << "merge: " << parts.size() << (parts.size() == 1 ? " part, " : " parts, ") << rows.size()
              << (rows.size() == 1 ? " row" : " rows") << " written to " << out << "\n";
    return 0;
}

} // namespace glint::cli
