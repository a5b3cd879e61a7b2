// Stands in for libcudadevrt's member: a device function, a helper only a
// kernel of its own calls, two variables, an external kernel and a static
// kernel its host code launches (listed in .nvHRKI as a * pattern).
__device__ int sys_var = 3;
__device__ int sys_used = 5;
__device__ __noinline__ int sysf(int x) { return x + sys_used; }
__device__ __noinline__ int sysg(int x) { return x * 2; }
__global__ void kSys(int *p) { p[0] = sysg(p[1]); }
static __global__ void kSysStatic(int *p) { p[0] = 1; }
void runSys(int *p) { kSysStatic<<<1, 1>>>(p); }
