// Declares it with one float: the prototypes `#iii` and `#ii` differ.
extern "C" __device__ int clamp_add(float a);
__global__ void use_b(int *o) { o[0] = clamp_add(o[1]); }
