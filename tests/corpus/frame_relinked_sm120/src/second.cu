// Linked second, as nvlink's -r output: its FDEs' CIE pointers have no
// relocations left, and nvlink counts them from the output section's start.
__global__ void k_second(int *o) { o[threadIdx.x] += 11; }
__global__ void k_second2(int *o, int n) { if (threadIdx.x < n) o[threadIdx.x] ^= n; }
