// Stands in for libcudadevrt's member: a kernel its host code launches
// (listed in .nvHRKI), one it does not, and a helper only that one calls.
__device__ __noinline__ int sysg(int x) { return x * 2; }
__global__ void kSys(int *p) { p[0] = sysg(p[1]); }
static __global__ void kSysStatic(int *p) { p[0] = 1; }
void runSys(int *p) { kSysStatic<<<1, 1>>>(p); }
