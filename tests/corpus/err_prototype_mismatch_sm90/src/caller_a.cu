// Declares `clamp_add` with two int parameters.
extern "C" __device__ int clamp_add(int a, int b);
__global__ void use_a(int *o) { o[0] = clamp_add(o[1], o[2]); }
