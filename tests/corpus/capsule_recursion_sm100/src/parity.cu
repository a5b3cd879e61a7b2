// Mutual recursion: each function's capsule has items that are not its
// instructions (calls that take a return address).
__device__ bool odd(unsigned n);
__device__ bool even(unsigned n) { return n == 0 ? true : odd(n - 1); }
__device__ bool odd(unsigned n) { return n == 0 ? false : even(n - 1); }
__global__ void parity(const unsigned* in, bool* out) { out[threadIdx.x] = even(in[threadIdx.x]); }
