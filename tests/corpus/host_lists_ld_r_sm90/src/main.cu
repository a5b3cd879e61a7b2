// The only kernel host code launches.
__global__ void run(float* o) { o[threadIdx.x] = 1.0f; }
int main()
{
    float* d;
    cudaMalloc(&d, 128);
    run<<<1, 32>>>(d);
    return 0;
}
