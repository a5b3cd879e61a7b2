// Member nothing calls: its kernel stays (archive members with IR are all
// compiled), its helper is inlined away.
__device__ int thrice(int x) { return 3 * x; }
__global__ void kUnused(int *p) { p[0] = thrice(p[1]); }
