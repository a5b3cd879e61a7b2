// A kernel using three named barriers.
__device__ int total;
__global__ void sync3(int* o) {
  asm volatile("bar.sync 0;");
  asm volatile("bar.sync 1, 64;");
  asm volatile("bar.sync 2, 64;");
  o[0] = total;
}
__global__ void spin(int* o) { o[1] = total + 1; }
