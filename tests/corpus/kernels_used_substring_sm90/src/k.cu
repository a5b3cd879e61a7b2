// -kernels-used=k_keep matches any kernel whose (mangled) name contains
// "k_keep": _Z6k_keepPi and _Z9k_keep_twoPi stay, _Z7k_otherPi goes.
__device__ __noinline__ int helper(int x) { return x * 7; }
__global__ void k_keep(int *p) { p[0] = helper(p[1]); }
__global__ void k_keep_two(int *p) { p[0] = 2; }
__global__ void k_other(int *p) { p[0] = helper(3); }
