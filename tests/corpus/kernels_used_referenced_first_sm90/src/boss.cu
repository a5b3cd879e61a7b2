// The listed kernel: launches `worker`, defined in a later object, and
// calls `late_launch`, defined after it.
extern __global__ void worker(int *p);
extern __device__ void late_launch(int *p);
__global__ void boss(int *p) {
  p[0] = 1;
  worker<<<1, 32>>>(p);
  late_launch(p);
}
