// A library member pulled in for `offset`; its unused function reads
// `table_b`, which nothing defines.
extern __device__ float table_b[16];
__device__ float unused_lookup(float x) { return x * table_b[3]; }
__device__ float offset(float x) { return x + 2.0f; }
