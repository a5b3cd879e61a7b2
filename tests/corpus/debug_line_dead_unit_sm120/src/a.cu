__global__ void used(float* p) { p[threadIdx.x] *= 2.f; }
int main() { float* p = nullptr; used<<<1, 32>>>(p); return 0; }
