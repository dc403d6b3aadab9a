// A stand-in libnvidia-ml.so.1 for scripts/stand-in-driver/check.sh: the NVML calls uform's discovery
// and readings make, describing the same one H200 as the stand-in libcuda.so.1 and nvidia-smi. No
// nvml.h here: the struct layouts are written from the NVML reference the discovery was built from (native-interfaces.md 2.2), and the
// one whose size matters is asserted.
#include <stdio.h>
#include <string.h>
#include <stdint.h>
typedef int nvmlReturn_t;
typedef struct nvmlDevice_st *nvmlDevice_t;
typedef struct { char busIdLegacy[16]; unsigned int domain, bus, device, pciDeviceId, pciSubSystemId; char busId[32]; } nvmlPciInfo_t;
typedef struct { unsigned long long total, free, used; } nvmlMemory_t;
typedef struct { unsigned int gpu, memory; } nvmlUtilization_t;
_Static_assert(sizeof(nvmlPciInfo_t) == 68, "pci");
static int dummy;
nvmlReturn_t nvmlInit_v2(void) { return 0; }
nvmlReturn_t nvmlDeviceGetCount_v2(unsigned int *c) { *c = 1; return 0; }
nvmlReturn_t nvmlDeviceGetHandleByIndex_v2(unsigned int i, nvmlDevice_t *d) { if (i) return 2; *d = (nvmlDevice_t) &dummy; return 0; }
nvmlReturn_t nvmlDeviceGetPciInfo_v3(nvmlDevice_t d, nvmlPciInfo_t *p) { memset(p, 0, sizeof *p); strcpy(p->busIdLegacy, "0000:1B:00.0"); p->bus = 0x1b; p->pciDeviceId = 0x233510de; strcpy(p->busId, "00000000:1B:00.0"); return 0; }
nvmlReturn_t nvmlDeviceGetUUID(nvmlDevice_t d, char *u, unsigned int len) { snprintf(u, len, "GPU-a0a1a2a3-a4a5-a6a7-a8a9-aaabacadaeaf"); return 0; }
nvmlReturn_t nvmlDeviceGetMemoryInfo(nvmlDevice_t d, nvmlMemory_t *m) { m->total = 150121996288ULL; m->used = 600ULL << 20; m->free = m->total - m->used; return 0; }
nvmlReturn_t nvmlDeviceGetUtilizationRates(nvmlDevice_t d, nvmlUtilization_t *u) { u->gpu = 7; u->memory = 3; return 0; }
nvmlReturn_t nvmlDeviceGetPowerUsage(nvmlDevice_t d, unsigned int *p) { *p = 123456; return 0; }
nvmlReturn_t nvmlDeviceGetTemperature(nvmlDevice_t d, int sensor, unsigned int *t) { if (sensor) return 2; *t = 41; return 0; }
const char *nvmlErrorString(nvmlReturn_t r) { return "fake"; }
