// SPDX-License-Identifier: BSD-3-Clause
//
// SeqAn 2's gapped X-drop seed extension, run on pairs read from a file: the reference the
// lassm X-drop oracle (lassm/backends/xdrop_cpu.py) is checked against, score for score.
//
// Build (lassm.backends.xdrop_seqan does it into a cache folder; nothing built is committed):
//     g++ -O2 -std=c++17 -I/usr/include seqan_driver.cpp -o seqan_driver
// Run:
//     seqan_driver MATCH MISMATCH GAP XDROP < pairs.tsv
// Input, one pair a line, tab-separated: seqH posH seqV posV seedLength (bases A, C, G, T, N).
// Output, one line a pair, tab-separated:
//     scoreLeft scoreRight beginH beginV endH endV
// where scoreLeft and scoreRight are what SeqAn's _extendSeedGappedXDropOneDirection returns
// for each direction (extendSeed itself returns nothing: "TODO(holtgrew): Update score?!"), and
// the positions are the seed's after extendSeed(seed, seqH, seqV, EXTEND_BOTH, score, X,
// GappedXDrop()). The two directions are run as extendSeed runs them, and extendSeed is also
// called on a copy of the seed: positions that differ are reported (exit code 3).
// A malformed line is reported with its number on stderr (exit code 2).
// SeqAn's debug assertions (on unless NDEBUG) check the seed's lower and upper diagonals, which
// are not reported here, and abort where a mismatch below the gap wraps the 32-bit scores around
// (undefined + mismatch): off, as in a release build, unless -DSEQAN_ENABLE_DEBUG=1 asks for them.
#ifndef SEQAN_ENABLE_DEBUG
#define SEQAN_ENABLE_DEBUG 0
#endif

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <string>

#include <seqan/seeds.h>
#include <seqan/sequence.h>
#include <seqan/score.h>

#ifndef XDROP_SCORE_T
#define XDROP_SCORE_T int
#endif

typedef XDROP_SCORE_T TScore;
typedef seqan::Seed<seqan::Simple> TSeed;
typedef seqan::Dna5String TSeq;

static bool parse_long(const std::string & text, long & out)
{
    if (text.empty())
        return false;
    char * end = nullptr;
    out = std::strtol(text.c_str(), &end, 10);
    return *end == '\0';
}

// The body of seqan::extendSeed(..., GappedXDrop) for EXTEND_BOTH, keeping each direction's score.
static void extend_both(TSeed & seed, TSeq const & seqH, TSeq const & seqV,
                        seqan::Score<TScore, seqan::Simple> const & scheme, TScore xdrop,
                        TScore & left, TScore & right)
{
    left = 0;
    right = 0;
    {
        typedef seqan::Prefix<TSeq const>::Type TPrefix;
        TPrefix databasePrefix = seqan::prefix(seqH, seqan::beginPositionH(seed));
        TPrefix queryPrefix = seqan::prefix(seqV, seqan::beginPositionV(seed));
        left = seqan::_extendSeedGappedXDropOneDirection(seed, queryPrefix, databasePrefix, seqan::EXTEND_LEFT,
                                                        scheme, xdrop);
    }
    {
        typedef seqan::Suffix<TSeq const>::Type TSuffix;
        TSuffix databaseSuffix = seqan::suffix(seqH, seqan::endPositionH(seed));
        TSuffix querySuffix = seqan::suffix(seqV, seqan::endPositionV(seed));
        right = seqan::_extendSeedGappedXDropOneDirection(seed, querySuffix, databaseSuffix, seqan::EXTEND_RIGHT,
                                                         scheme, xdrop);
    }
}

int main(int argc, char ** argv)
{
    if (argc != 5)
    {
        std::cerr << "usage: " << argv[0] << " MATCH MISMATCH GAP XDROP < pairs.tsv\n";
        return 2;
    }
    long values[4];
    for (int i = 0; i < 4; ++i)
    {
        if (!parse_long(argv[i + 1], values[i]))
        {
            std::cerr << argv[0] << ": argument " << i + 1 << " (" << argv[i + 1] << ") is not an integer\n";
            return 2;
        }
    }
    seqan::Score<TScore, seqan::Simple> scheme((TScore)values[0], (TScore)values[1], (TScore)values[2]);
    TScore const xdrop = (TScore)values[3];

    std::string line;
    long lineno = 0;
    int status = 0;
    while (std::getline(std::cin, line))
    {
        ++lineno;
        if (line.empty())
            continue;
        std::istringstream fields(line);
        std::string seqHText, posHText, seqVText, posVText, lenText;
        long posH, posV, len;
        if (!std::getline(fields, seqHText, '\t') || !std::getline(fields, posHText, '\t') ||
            !std::getline(fields, seqVText, '\t') || !std::getline(fields, posVText, '\t') ||
            !std::getline(fields, lenText, '\t') || !parse_long(posHText, posH) || !parse_long(posVText, posV) ||
            !parse_long(lenText, len) || posH < 0 || posV < 0 || len < 0 ||
            posH + len > (long)seqHText.size() || posV + len > (long)seqVText.size())
        {
            std::cerr << "line " << lineno << ": expected seqH posH seqV posV seedLength with the seed inside both\n";
            return 2;
        }
        TSeq seqH(seqHText);
        TSeq seqV(seqVText);
        TSeed seed(posH, posV, len);
        TSeed copy(posH, posV, len);
        TScore left, right;
        extend_both(seed, seqH, seqV, scheme, xdrop, left, right);
        seqan::extendSeed(copy, seqH, seqV, seqan::EXTEND_BOTH, scheme, xdrop, seqan::GappedXDrop());
        if (seqan::beginPositionH(seed) != seqan::beginPositionH(copy) ||
            seqan::beginPositionV(seed) != seqan::beginPositionV(copy) ||
            seqan::endPositionH(seed) != seqan::endPositionH(copy) ||
            seqan::endPositionV(seed) != seqan::endPositionV(copy))
        {
            std::cerr << "line " << lineno << ": extendSeed moved the seed elsewhere than its two directions\n";
            status = 3;
        }
        std::cout << left << '\t' << right << '\t' << seqan::beginPositionH(seed) << '\t'
                  << seqan::beginPositionV(seed) << '\t' << seqan::endPositionH(seed) << '\t'
                  << seqan::endPositionV(seed) << '\n';
    }
    return status;
}
