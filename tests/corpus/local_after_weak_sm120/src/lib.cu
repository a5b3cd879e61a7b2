// Two file-local functions; build.sh makes the one ptxas lists first WEAK in place, as
// ptxas 13.0 lists weak functions among the locals (NVSHMEM's device
// library). nvlink for sm_100+ still makes the code of the local one that
// follows it first.
static __device__ __noinline__ int first_local(int x, int *p) { return p[x & 15] * 3 + x; }
static __device__ __noinline__ int second_local(int x, int *p) { return p[(x >> 2) & 15] ^ x; }
__device__ __noinline__ int lib_entry(int x, int *p) { return first_local(x, p) + second_local(x, p); }
