// The device function the kernel calls, in its own file.
__device__ int scale(int x) { return 3 * x + 1; }
