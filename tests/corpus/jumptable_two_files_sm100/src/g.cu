__noinline__ __device__ int g(int x){
  switch(x){
  case 0: return x*5+1; case 1: return x^71; case 2: return x*x+x; case 3: return x-91;
  case 4: return x*17; case 5: return x+4; case 6: return x>>5; case 7: return x*x+7;
  case 8: return 55; case 9: return x|0x10; case 10: return 3; case 11: return x&7; default: return -2;}
}
