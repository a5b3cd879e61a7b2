// Device functions with bank-2 blocks: placed in reverse input order, the
// last section of an input first (sections come in reverse definition
// order, so dc is placed first, then sw, sw3, sw2).
__device__ __noinline__ double dc(double x)
{
    return x * 0.1234567891234567 + 3.333333333333333 - x * x * 1.7777777777777;
}

__device__ __noinline__ int sw(int x)
{
    switch (x) {
    case 0: return x * 3 + 1;
    case 1: return x ^ 77;
    case 2: return x * x;
    case 3: return x - 9;
    case 4: return x + 1000;
    case 5: return x << 3;
    case 6: return 17;
    default: return -1;
    }
}

__device__ __noinline__ int sw3(int x)
{
    switch (x) {
    case 0: return x * 5 + 2;
    case 1: return x ^ 55;
    case 2: return x * x + 3;
    case 3: return x - 19;
    case 4: return x + 3000;
    default: return -3;
    }
}

__device__ __noinline__ int sw2(int x)
{
    switch (x) {
    case 0: return x * 3 + 1;
    case 1: return x ^ 77;
    case 2: return x * x;
    case 3: return x - 9;
    case 4: return x + 2000;
    case 5: return x << 3;
    case 6: return 19;
    default: return -1;
    }
}
