// A kernel calls f(int); g(float, float) is never called and goes. On
// sm_100+ .strtab keeps only the prototype strings the output's call graph
// and .nv.prototype still name ("#ii"), unlike sm_90.
__device__ __noinline__ int f(int x) { return x * 3; }
__device__ __noinline__ float g(float a, float b) { return a * b; }
__global__ void k_f(int *p) { p[0] = f(p[1]); }
