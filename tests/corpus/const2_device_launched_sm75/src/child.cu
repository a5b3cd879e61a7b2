// The launched kernel and its helper, with their own double constants.
__device__ __noinline__ double cmath(double x) { return exp(x * 0.318309886183791) + log1p(x * 2.718281828459045); }
__global__ void child(double *p) { p[threadIdx.x] = cmath(p[threadIdx.x]) * 1.4142135623730951; }
