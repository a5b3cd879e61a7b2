// Nothing calls these setters (dead code), yet nvlink keeps the functions
// whose addresses they take: `scale_fn` with its helper (use.cu calls
// through a `float (float)` pointer), `shift_fn` without its helper (no
// indirect call of `double (double)`).
__device__ __noinline__ float scale_helper(float x) { return x * 9.0f; }
__device__ float scale_fn(float x) { return scale_helper(x) + 42.0f; }
__device__ __noinline__ double shift_helper(double x) { return x - 3.0; }
__device__ double shift_fn(double x) { return shift_helper(x) * 2.0; }
__device__ float (*g_scale)(float) = nullptr;
__device__ double (*g_shift)(double) = nullptr;
__device__ __noinline__ void set_scale() { g_scale = scale_fn; }
__device__ __noinline__ void set_shift() { g_shift = shift_fn; }
