// Built as PTX only (compute_80): nvlink compiles it for the link's SM.
__device__ float scale(float x, float k) { return x * k + 1.0f; }
