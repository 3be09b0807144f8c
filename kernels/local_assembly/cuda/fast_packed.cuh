// SPDX-License-Identifier: BSD-3-Clause
//
// Packed keys, tried on fast (LASSM_FAST_PACKED_KEYS=1, off in fast; the build fast-packed): keys that hold
// the k-mer itself where it fits. A slot's key word is (epoch << 48) | (the rest); fast keeps the
// k-mer's offset in the read buffer there, so every compare loads the read bytes the offset points
// at, one more round trip after the key's. A k-mer of at most LASSM_FAST_PACK_MAX bases, all of
// them A, C, G or T, is kept instead as its bases two bits each, with LASSM_FAST_PACKED_BIT set: a
// find compares the key word alone, and the walk shifts two bits in per step instead of hashing
// k bytes. Any other k-mer keeps its offset (the bit clear), so a packed key and an offset key
// never hold the same k-mer, and only two offset keys are compared byte by byte. The hash of a
// packed k-mer mixes its bits (fast_hash_packed), of any other its bytes (fast_hash), a function
// of the k-mer either way; the visited set uses the same hash in the scan steps and the walk.
// Which slot a k-mer lands in still never reaches the output.
#ifndef LASSM_FAST_PACKED_CUH
#define LASSM_FAST_PACKED_CUH

#if LASSM_FAST_PACKED_KEYS

// 47 bits beside the epoch's 16 and the packed bit: 23 bases.
#define LASSM_FAST_PACK_MAX 23
#define LASSM_FAST_PACKED_BIT (1ull << 47)
#define LASSM_FAST_NOT_PACKED (~0ull)

// A, C, G, T as 0..3; 4 for any other byte (N, lower case: such a k-mer keeps its offset).
__device__ __forceinline__ u32 fast_code(u8 b)
{
    return b == 'A' ? 0u : b == 'C' ? 1u : b == 'G' ? 2u : b == 'T' ? 3u : 4u;
}

// The k bases at key, two bits each (the first base highest), or LASSM_FAST_NOT_PACKED when k is
// too long or a byte is not A, C, G or T.
__device__ __forceinline__ u64 fast_pack(const u8* key, int k)
{
    if (k > LASSM_FAST_PACK_MAX) return LASSM_FAST_NOT_PACKED;
    u64 p = 0ull;
    u32 bad = 0u;
    for (int i = 0; i < k; ++i) {
        const u32 c = fast_code(key[i]);
        bad |= c >> 2;
        p = (p << 2) | (u64)(c & 3u);
    }
    return bad ? LASSM_FAST_NOT_PACKED : p;
}

// MurmurHash3's 64-bit finalizer, folded to 32 bits: the hash of a packed k-mer.
__device__ __forceinline__ u32 fast_hash_packed(u64 p)
{
    p ^= p >> 33;
    p *= 0xff51afd7ed558ccdull;
    p ^= p >> 33;
    p *= 0xc4ceb9fe1a85ec53ull;
    p ^= p >> 33;
    return (u32)p ^ (u32)(p >> 32);
}

// The key word's low bits an insert claims for the k-mer at key, in the read buffer (packed p, or
// LASSM_FAST_NOT_PACKED: its offset there).
__device__ __forceinline__ u64 fast_key_bits(const u8* seqs, const u8* key, u64 p)
{
    return p != LASSM_FAST_NOT_PACKED ? (LASSM_FAST_PACKED_BIT | p) : (u64)(key - seqs);
}

// The low bits a find compares with, for a k-mer anywhere (the walk's is in shared memory): the
// packed bits, or 0 (the packed bit clear: fast_same then compares bytes).
__device__ __forceinline__ u64 fast_find_bits(u64 p)
{
    return p != LASSM_FAST_NOT_PACKED ? (LASSM_FAST_PACKED_BIT | p) : 0ull;
}

// The hash of the k-mer at key (packed p, or LASSM_FAST_NOT_PACKED), for the table and the
// visited set alike.
__device__ __forceinline__ u32 fast_key_hash(const u8* key, int k, u64 p)
{
    return p != LASSM_FAST_NOT_PACKED ? fast_hash_packed(p) : fast_hash(key, k);
}

// Whether a key word of this epoch (its low bits theirs) holds the k-mer at key (its low bits
// mine): packed on either side, equal bits; two offsets, equal bytes.
__device__ __forceinline__ bool fast_same(const u8* seqs, u64 theirs, u64 mine, const u8* key, int k)
{
    if ((theirs | mine) & LASSM_FAST_PACKED_BIT) return theirs == mine;
    return fast_kmer_eq(seqs + theirs, key, k);
}

// fast_insert with packed keys: the claim of the k-mer at key (low bits mine, hash h).
__device__ __forceinline__ u32 fast_insert_packed(ht_slot* ht, u32 mask, const u8* seqs, const u8* key, int k,
                                                  u64 mine, u32 h, u64 tag)
{
    return fast_insert_by(ht, mask, tag | mine, h, tag,
                          [=](u64 theirs) { return fast_same(seqs, theirs, mine, key, k); });
}

// fast_find_votes with packed keys.
__device__ __forceinline__ bool fast_find_votes_packed(const ht_slot* ht, u32 mask, const u8* seqs, const u8* key,
                                                       int k, u64 mine, u32 h, u64 tag, u32* low, u32* high)
{
    return fast_find_votes_by(ht, mask, h, tag, low, high,
                              [=](u64 theirs) { return fast_same(seqs, theirs, mine, key, k); });
}

// The insert of one k-mer in the read buffer (what fast_insert_round's lane does with it).
__device__ __forceinline__ u32 fast_claim_packed(ht_slot* ht, u32 mask, const u8* seqs, const u8* key, int k,
                                                 u64 tag)
{
    const u64 p = fast_pack(key, k);
    return fast_insert_packed(ht, mask, seqs, key, k, fast_key_bits(seqs, key, p), fast_key_hash(key, k, p), tag);
}

#endif  // LASSM_FAST_PACKED_KEYS
#endif  // LASSM_FAST_PACKED_CUH
