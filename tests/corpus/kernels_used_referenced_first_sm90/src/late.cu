// Launches `early`, whose object was merged before this one.
extern __global__ void early(int *p);
__device__ void late_launch(int *p) { early<<<1, 1>>>(p); }
