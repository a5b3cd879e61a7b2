// Stands in for libcudadevrt (an archive whose name says cudadevrt): full
// LTO leaves it out, but nvlink wants one among the inputs.
__device__ __noinline__ int sysf(int x) { return x + 7; }
