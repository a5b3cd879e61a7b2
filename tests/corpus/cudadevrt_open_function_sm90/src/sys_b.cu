// A second member: another device function nothing calls.
__device__ __noinline__ int sys_mul(int x) { return x * 3; }
