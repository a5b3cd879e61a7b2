// Stands in for a libcudadevrt member: a device function nothing calls.
__device__ __noinline__ int sys_add(int x) { return x + 7; }
