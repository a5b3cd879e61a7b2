// A device function that is not inlined, with a local helper.
static __device__ __noinline__ float clampf(float x) { return x < 0.f ? 0.f : (x > 1.f ? 1.f : x); }
__device__ float ramp(float x) { return clampf(x * 2.f - 0.5f); }
