// SPDX-License-Identifier: BSD-3-Clause
//
// LOGAN's own scores, pair by pair. LOGAN's demo computes every pair's score with the library
// call extendSeedL and frees it unprinted; this driver makes the same call on the same input,
// in the demo's batches of 30,000 pairs and 128 threads per block, on one GPU, and prints each
// score, so that lassm's X-drop kernel can be checked against LOGAN's for every pair.
//
// Built with LOGAN's sources (albertozeni/LOGAN, src/) and its Makefile's flags; it is not part
// of LOGAN and not of lassm's kernels: lassm/campaign/originals/build.py compiles it.
//
// usage:  logan_scores INPUT K X
// INPUT:  the demo's input, one pair a line: seqV <tab> posV <tab> seqH <tab> posH <tab> strand
//         (strand "n": both reads on the same strand; lassm writes no other)
// output: "score <tab> i <tab> s" for pair i (0-based, input order), beside the library's own
//         "GPU only time" lines

#include "logan.cuh"

#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

namespace {

constexpr int kBatch = 30000;        // the demo's BATCH_SIZE
constexpr int kThreadsPerBlock = 128;  // the demo's GPU_THREADS

struct PairsIn {
    std::vector<std::string> v, h;
    std::vector<SeedL> seeds;
};

bool next_field(const std::string& line, size_t& at, std::string& out) {
    if (at > line.size()) return false;
    size_t tab = line.find('\t', at);
    out = line.substr(at, tab == std::string::npos ? std::string::npos : tab - at);
    at = tab == std::string::npos ? line.size() + 1 : tab + 1;
    return true;
}

// Reads INPUT; on a malformed line prints "file:line: field: why" and returns false.
bool read_pairs(const char* path, int k, PairsIn& in) {
    std::ifstream file(path);
    if (!file) {
        std::fprintf(stderr, "%s: cannot be read\n", path);
        return false;
    }
    std::string line, seq_v, pos_v, seq_h, pos_h, strand;
    for (long n = 1; std::getline(file, line); ++n) {
        if (line.empty()) continue;
        size_t at = 0;
        if (!next_field(line, at, seq_v) || !next_field(line, at, pos_v) || !next_field(line, at, seq_h) ||
            !next_field(line, at, pos_h) || !next_field(line, at, strand)) {
            std::fprintf(stderr, "%s:%ld: line: want 5 tab-separated fields\n", path, n);
            return false;
        }
        if (strand != "n") {
            std::fprintf(stderr, "%s:%ld: strand: %s (only n, the same strand, is written by lassm)\n", path, n,
                         strand.c_str());
            return false;
        }
        int pv = std::stoi(pos_v), ph = std::stoi(pos_h);
        in.v.push_back(seq_v);
        in.h.push_back(seq_h);
        in.seeds.push_back(SeedL(ph, pv, k));
    }
    return true;
}

}  // namespace

int main(int argc, char** argv) {
    if (argc != 4) {
        std::fprintf(stderr, "usage: %s INPUT K X\n", argv[0]);
        return 2;
    }
    const int k = std::atoi(argv[2]);
    const int xdrop = std::atoi(argv[3]);
    PairsIn in;
    if (!read_pairs(argv[1], k, in)) return 2;
    cudaFree(0);  // the context, before the first batch (as the demo does)

    const int n = static_cast<int>(in.seeds.size());
    ScoringSchemeL scheme(1, -1, -1, -1);  // the demo's: match, mismatch, gap extend, gap open
    std::vector<ScoringSchemeL> penalties(n, scheme);
    std::vector<int> scores(kBatch);
    for (int first = 0; first < n; first += kBatch) {
        const int count = std::min(kBatch, n - first);
        std::vector<SeedL> seeds(in.seeds.begin() + first, in.seeds.begin() + first + count);
        std::vector<std::string> target(in.h.begin() + first, in.h.begin() + first + count);
        std::vector<std::string> query(in.v.begin() + first, in.v.begin() + first + count);
        extendSeedL(seeds, EXTEND_BOTHL, target, query, penalties, xdrop, k, scores.data(), count, 1,
                    kThreadsPerBlock);
        for (int i = 0; i < count; ++i) std::printf("score\t%d\t%d\n", first + i, scores[i]);
    }
    return 0;
}
