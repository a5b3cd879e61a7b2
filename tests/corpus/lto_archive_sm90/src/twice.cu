// Member the program needs.
__device__ int twice(int x) { return 2 * x; }
