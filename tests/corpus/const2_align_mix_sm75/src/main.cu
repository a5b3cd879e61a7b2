// Kernels whose merged bank 2 mixes 4-aligned blocks (switch jump tables)
// with 8-aligned ones (double literals) and with their own bank.
__device__ double dc(double);
__device__ int sw(int);
__device__ int sw2(int);
__device__ int sw3(int);

// dc (8) first, then sw (4) at an 8-aligned offset; the bank ends padded.
__global__ void kA(double* o, int* p) { o[0] = dc(o[1]); p[0] = sw(p[1]); }

// Only 4-aligned blocks, but sw joins kA's 8-aligned bank: kB's bank is
// aligned 8, sw sits at an 8-aligned offset and sw3 after it too.
__global__ void kB(int* p) { p[0] = sw(p[1]); p[2] = sw2(p[3]); p[4] = sw3(p[5]); }

// Its one block, sw2, is 4-aligned but placed after the banks it joins
// (kB's) became 8-aligned: kC's bank is aligned 8 too.
__global__ void kC(int* p) { p[0] = sw2(p[1]); }

// Its own bank is a 4-aligned jump table; dc joins at 8, sw3 after it.
__global__ void kD(double* o, int* p)
{
    o[0] = dc(o[1]);
    p[0] = sw3(p[1]);
    switch (p[2]) {
    case 0: p[3] = 5; break;
    case 1: p[3] = p[4] * 7; break;
    case 2: p[3] = p[5] ^ 99; break;
    case 3: p[4] = 1; break;
    case 4: p[6] = p[7] + 1000; break;
    case 5: p[8] = 3; break;
    case 6: p[9] = p[2] * p[2]; break;
    default: break;
    }
}
