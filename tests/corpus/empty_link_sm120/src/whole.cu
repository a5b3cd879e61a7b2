// Compiled without -rdc: the object carries only executable device code
// (.nv_fatbin), which nvlink does not link. nvcc still runs the device
// link (and CMake's compiler check does): nvlink then writes an output
// with nothing linked in.
__global__ void k_whole(int *p) { p[threadIdx.x] = threadIdx.x; }
int main() { k_whole<<<1, 32>>>(nullptr); return 0; }
