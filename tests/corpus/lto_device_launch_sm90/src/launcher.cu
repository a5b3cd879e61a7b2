// k_parent launches k_child from the device; the host launches neither.
__global__ void k_child(int *p) { p[threadIdx.x] += 1; }
__global__ void k_parent(int *p) { k_child<<<1, 32>>>(p); }
