// Second compile unit: its DW_AT_stmt_list and DW_AT_abbrev offset point
// past the first unit's line program and abbreviations.
__device__ int inc(int x) { return x + 1; }
__device__ int dbl(int x) { return x * 2; }
typedef int (*fn_t)(int);
__device__ fn_t table[2] = {inc, dbl};
__device__ int pick(int x) { return table[x & 1](x); }
