// A stand-in libcuda.so.1 for checking uform's JNA binding of the CUDA driver API where no GPU is
// (scripts/stand-in-driver/check.sh builds it and runs scripts/gpu-check.sh against it). It is compiled
// against the real CUDA 13 cuda.h: the header's #defines give each definition its exported
// (versioned) name, such as cuMemAlloc_v2, and the compiler checks every prototype, so a binding
// that passes the wrong argument widths, the wrong entry point or the wrong struct layout fails here.
// It also checks what a driver would refuse (no current context, a handle used after it was
// destroyed, a copy or kernel argument outside an allocation) and prints "ABI/USAGE ERROR" for it,
// reports leaked bytes and events when the primary context goes, and runs the one shipped kernel
// (uform_dot_f32) on the host, from its kernelParams as the driver reads them. One device, an H200
// as the driver would describe it. Work completes when it is queued; FAKE_CUDA_EVENT_BUSY=n makes the
// first n event queries after a record answer CUDA_ERROR_NOT_READY. FAKE_CUDA_LOG=1 logs every call.
// Not a driver: passing here proves the binding's shape, never a GPU's behaviour.
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <stdint.h>

#define LOG(...) do { if (getenv("FAKE_CUDA_LOG")) { fprintf(stderr, "[fakecuda] " __VA_ARGS__); fputc('\n', stderr); } } while (0)
#define BAD(...) do { fprintf(stderr, "[fakecuda] ABI/USAGE ERROR: " __VA_ARGS__); fputc('\n', stderr); } while (0)

struct CUctx_st { int device; int refs; };
struct CUstream_st { CUcontext ctx; int alive; };
struct CUmod_st { int alive; };
struct CUfunc_st { CUmodule mod; };

static struct CUctx_st primary = { 0, 0 };
static int inited = 0;
static __thread CUcontext current = NULL;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

#define MAXA 4096
static struct { uintptr_t base; size_t size; } allocs[MAXA];
static size_t used_bytes = 0;
static int live_events = 0;
static const size_t TOTAL = 150121996288ULL;

static int visible_count(void) {
	const char *v = getenv("CUDA_VISIBLE_DEVICES");
	if (v && *v == 0) return 0;
	return 1;
}
static CUresult need_ctx(const char *fn) {
	if (!inited) { BAD("%s before cuInit", fn); return CUDA_ERROR_NOT_INITIALIZED; }
	if (current == NULL || current->refs <= 0) { BAD("%s with no live context current on thread %lu", fn, (unsigned long) pthread_self()); return CUDA_ERROR_INVALID_CONTEXT; }
	return CUDA_SUCCESS;
}
static int in_alloc(uintptr_t p, size_t n) {
	for (int i = 0; i < MAXA; i++) if (allocs[i].base && p >= allocs[i].base && p + n <= allocs[i].base + allocs[i].size) return 1;
	return 0;
}

CUresult cuInit(unsigned int Flags) { LOG("cuInit(%u)", Flags); if (Flags) return CUDA_ERROR_INVALID_VALUE; if (!visible_count()) return CUDA_ERROR_NO_DEVICE; inited = 1; return CUDA_SUCCESS; }
CUresult cuDriverGetVersion(int *v) { if (!v) return CUDA_ERROR_INVALID_VALUE; *v = 13000; return CUDA_SUCCESS; }
CUresult cuDeviceGetCount(int *c) { if (!inited) return CUDA_ERROR_NOT_INITIALIZED; *c = visible_count(); return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int ordinal) { if (!inited) return CUDA_ERROR_NOT_INITIALIZED; if (ordinal < 0 || ordinal >= visible_count()) return CUDA_ERROR_INVALID_DEVICE; *d = ordinal; return CUDA_SUCCESS; }
CUresult cuDeviceGetName(char *name, int len, CUdevice dev) { if (dev != 0 || len < 1) return CUDA_ERROR_INVALID_VALUE; snprintf(name, len, "NVIDIA H200"); return CUDA_SUCCESS; }
CUresult cuDeviceTotalMem(size_t *bytes, CUdevice dev) { LOG("cuDeviceTotalMem_v2 dev=%d", dev); if (dev != 0) return CUDA_ERROR_INVALID_DEVICE; *bytes = TOTAL; return CUDA_SUCCESS; }
CUresult cuDeviceGetAttribute(int *pi, CUdevice_attribute a, CUdevice dev) {
	LOG("cuDeviceGetAttribute(%d, dev=%d)", (int) a, dev);
	if (dev != 0) return CUDA_ERROR_INVALID_DEVICE;
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *pi = 132; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *pi = 9; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *pi = 0; break;
	case CU_DEVICE_ATTRIBUTE_MULTICAST_SUPPORTED: *pi = 1; break;
	default: *pi = 0;
	}
	return CUDA_SUCCESS;
}
CUresult cuDeviceGetUuid(CUuuid *u, CUdevice dev) { for (int i = 0; i < 16; i++) u->bytes[i] = (char) (0xa0 + i); return CUDA_SUCCESS; }
CUresult cuDeviceGetPCIBusId(char *b, int len, CUdevice dev) { if (len < 13) return CUDA_ERROR_INVALID_VALUE; snprintf(b, len, "0000:1B:00.0"); return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *p, CUdevice dev) { if (!inited) return CUDA_ERROR_NOT_INITIALIZED; pthread_mutex_lock(&lock); primary.refs++; pthread_mutex_unlock(&lock); *p = &primary; LOG("retain -> refs %d", primary.refs); return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRelease(CUdevice dev) { pthread_mutex_lock(&lock); primary.refs--; int r = primary.refs; pthread_mutex_unlock(&lock); LOG("release -> refs %d", r); if (r < 0) { BAD("release below zero"); return CUDA_ERROR_INVALID_CONTEXT; } if (r == 0 && used_bytes) BAD("primary ctx destroyed with %zu bytes still allocated", used_bytes); if (r == 0 && live_events) BAD("primary ctx destroyed with %d events still live", live_events); if (r == 0) fprintf(stderr, "[fakecuda] primary context destroyed, leaked bytes=%zu, live events=%d\n", used_bytes, live_events); return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { LOG("cuCtxSetCurrent(%p) thread %lu", (void*) c, (unsigned long) pthread_self()); current = c; return CUDA_SUCCESS; }
CUresult cuStreamCreate(CUstream *s, unsigned int flags) { CUresult r = need_ctx("cuStreamCreate"); if (r) return r; if (flags > 1) return CUDA_ERROR_INVALID_VALUE; *s = calloc(1, sizeof(struct CUstream_st)); (*s)->ctx = current; (*s)->alive = 1; return CUDA_SUCCESS; }
CUresult cuStreamDestroy(CUstream s) { CUresult r = need_ctx("cuStreamDestroy_v2"); if (r) return r; if (!s || !s->alive) return CUDA_ERROR_INVALID_HANDLE; s->alive = 0; return CUDA_SUCCESS; }
CUresult cuStreamSynchronize(CUstream s) { CUresult r = need_ctx("cuStreamSynchronize"); if (r) return r; if (s && !s->alive) return CUDA_ERROR_INVALID_HANDLE; return CUDA_SUCCESS; }
CUresult cuStreamQuery(CUstream s) { CUresult r = need_ctx("cuStreamQuery"); if (r) return r; if (s && !s->alive) return CUDA_ERROR_INVALID_HANDLE; return CUDA_SUCCESS; }
// Events: the fake's work is done when it is queued, so an event is done once recorded; FAKE_CUDA_EVENT_BUSY=n
// makes the first n queries after each record answer CUDA_ERROR_NOT_READY, to exercise the binding's 600 path.
struct CUevent_st { CUcontext ctx; int alive; int recorded; int busy; };
CUresult cuEventCreate(CUevent *e, unsigned int flags) {
	CUresult r = need_ctx("cuEventCreate"); if (r) return r;
	LOG("cuEventCreate flags=0x%x", flags);
	if (!e) { BAD("cuEventCreate with a NULL out pointer"); return CUDA_ERROR_INVALID_VALUE; }
	if (flags & ~0xFu) { BAD("cuEventCreate flags 0x%x", flags); return CUDA_ERROR_INVALID_VALUE; }
	*e = calloc(1, sizeof(struct CUevent_st)); (*e)->ctx = current; (*e)->alive = 1;
	pthread_mutex_lock(&lock); live_events++; pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}
CUresult cuEventRecord(CUevent e, CUstream s) {
	CUresult r = need_ctx("cuEventRecord"); if (r) return r;
	LOG("cuEventRecord event=%p stream=%p", (void*) e, (void*) s);
	if (!e || !e->alive) { BAD("cuEventRecord of a dead or NULL event %p", (void*) e); return CUDA_ERROR_INVALID_HANDLE; }
	if (s && !s->alive) return CUDA_ERROR_INVALID_HANDLE;
	if (s && s->ctx != e->ctx) { BAD("cuEventRecord: event and stream of different contexts"); return CUDA_ERROR_INVALID_HANDLE; }
	const char *busy = getenv("FAKE_CUDA_EVENT_BUSY");
	e->recorded = 1; e->busy = busy ? atoi(busy) : 0;
	return CUDA_SUCCESS;
}
CUresult cuEventQuery(CUevent e) {
	CUresult r = need_ctx("cuEventQuery"); if (r) return r;
	if (!e || !e->alive) { BAD("cuEventQuery of a dead or NULL event %p", (void*) e); return CUDA_ERROR_INVALID_HANDLE; }
	if (e->recorded && e->busy > 0) { e->busy--; LOG("cuEventQuery %p -> NOT_READY", (void*) e); return CUDA_ERROR_NOT_READY; }
	LOG("cuEventQuery %p -> SUCCESS", (void*) e);
	return CUDA_SUCCESS;
}
CUresult cuEventDestroy(CUevent e) {
	CUresult r = need_ctx("cuEventDestroy_v2"); if (r) return r;
	LOG("cuEventDestroy_v2 %p", (void*) e);
	if (!e || !e->alive) { BAD("cuEventDestroy_v2 of a dead or NULL event %p", (void*) e); return CUDA_ERROR_INVALID_HANDLE; }
	e->alive = 0;
	pthread_mutex_lock(&lock); live_events--; pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}
CUresult cuMemAlloc(CUdeviceptr *p, size_t n) {
	CUresult r = need_ctx("cuMemAlloc_v2"); if (r) return r;
	LOG("cuMemAlloc_v2(%zu)", n);
	if (n == 0) return CUDA_ERROR_INVALID_VALUE;
	if (used_bytes + n > (size_t) 8 << 30) return CUDA_ERROR_OUT_OF_MEMORY; // keep the fake small on a dev box
	void *m = aligned_alloc(256, (n + 255) / 256 * 256); if (!m) return CUDA_ERROR_OUT_OF_MEMORY;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAXA; i++) if (!allocs[i].base) { allocs[i].base = (uintptr_t) m; allocs[i].size = n; break; }
	used_bytes += n;
	pthread_mutex_unlock(&lock);
	*p = (CUdeviceptr) (uintptr_t) m; return CUDA_SUCCESS;
}
CUresult cuMemFree(CUdeviceptr p) {
	CUresult r = need_ctx("cuMemFree_v2"); if (r) return r;
	pthread_mutex_lock(&lock);
	for (int i = 0; i < MAXA; i++) if (allocs[i].base == (uintptr_t) p) { used_bytes -= allocs[i].size; allocs[i].base = 0; pthread_mutex_unlock(&lock); free((void*) (uintptr_t) p); return CUDA_SUCCESS; }
	pthread_mutex_unlock(&lock);
	BAD("cuMemFree of unknown 0x%llx", p); return CUDA_ERROR_INVALID_VALUE;
}
CUresult cuMemGetInfo(size_t *f, size_t *t) { CUresult r = need_ctx("cuMemGetInfo_v2"); if (r) return r; *t = TOTAL; *f = TOTAL - used_bytes; return CUDA_SUCCESS; }
CUresult cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src, size_t n, CUstream s) {
	CUresult r = need_ctx("cuMemcpyHtoDAsync_v2"); if (r) return r;
	LOG("HtoD dst=0x%llx src=%p n=%zu s=%p", dst, src, n, (void*) s);
	if (!in_alloc((uintptr_t) dst, n)) { BAD("HtoD out of allocation"); return CUDA_ERROR_INVALID_VALUE; }
	if (s && !s->alive) return CUDA_ERROR_INVALID_HANDLE;
	memcpy((void*) (uintptr_t) dst, src, n); return CUDA_SUCCESS;
}
CUresult cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n, CUstream s) {
	CUresult r = need_ctx("cuMemcpyDtoHAsync_v2"); if (r) return r;
	if (!in_alloc((uintptr_t) src, n)) { BAD("DtoH out of allocation"); return CUDA_ERROR_INVALID_VALUE; }
	if (s && !s->alive) return CUDA_ERROR_INVALID_HANDLE;
	memcpy(dst, (void*) (uintptr_t) src, n); return CUDA_SUCCESS;
}
CUresult cuModuleLoadDataEx(CUmodule *m, const void *image, unsigned int n, CUjit_option *opts, void **vals) {
	CUresult r = need_ctx("cuModuleLoadDataEx"); if (r) return r;
	const char *text = image;
	size_t len = strnlen(text, 1 << 24);
	LOG("cuModuleLoadDataEx len=%zu n=%u", len, n);
	char *log = NULL; unsigned int logsize = 0;
	for (unsigned i = 0; i < n; i++) {
		if (opts[i] == CU_JIT_ERROR_LOG_BUFFER) log = vals[i];
		else if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) logsize = (unsigned int) (uintptr_t) vals[i];
		else { BAD("unexpected jit option %d", opts[i]); }
	}
	LOG("jit log buffer %p size %u", log, logsize);
	if (!strstr(text, ".version ") || !strstr(text, ".target sm_") || !strstr(text, ".visible .entry uform_dot_f32(") || getenv("FAKE_CUDA_JIT_FAIL")) {
		if (log && logsize) { int w = snprintf(log, logsize, "ptxas application ptx input, line 1; error   : fake refusal"); for (unsigned i = 0; i < n; i++) if (opts[i] == CU_JIT_ERROR_LOG_BUFFER_SIZE_BYTES) vals[i] = (void*) (uintptr_t) (w + 1); }
		return CUDA_ERROR_INVALID_PTX;
	}
	*m = calloc(1, sizeof(struct CUmod_st)); (*m)->alive = 1; return CUDA_SUCCESS;
}
CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name) {
	CUresult r = need_ctx("cuModuleGetFunction"); if (r) return r;
	if (!m || !m->alive) return CUDA_ERROR_INVALID_HANDLE;
	if (strcmp(name, "uform_dot_f32")) return CUDA_ERROR_NOT_FOUND;
	*f = calloc(1, sizeof(struct CUfunc_st)); (*f)->mod = m; return CUDA_SUCCESS;
}
CUresult cuModuleUnload(CUmodule m) { CUresult r = need_ctx("cuModuleUnload"); if (r) return r; if (!m || !m->alive) return CUDA_ERROR_INVALID_HANDLE; m->alive = 0; return CUDA_SUCCESS; }
CUresult cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy, unsigned int gz, unsigned int bx, unsigned int by, unsigned int bz, unsigned int shared, CUstream s, void **kp, void **extra) {
	CUresult r = need_ctx("cuLaunchKernel"); if (r) return r;
	LOG("launch grid %u,%u,%u block %u,%u,%u shared %u stream %p kp %p extra %p", gx, gy, gz, bx, by, bz, shared, (void*) s, (void*) kp, (void*) extra);
	if (!f || !f->mod->alive) return CUDA_ERROR_INVALID_HANDLE;
	if (s && !s->alive) return CUDA_ERROR_INVALID_HANDLE;
	if (extra) { BAD("extra not NULL"); return CUDA_ERROR_INVALID_VALUE; }
	if (!kp) { BAD("kernelParams NULL"); return CUDA_ERROR_INVALID_VALUE; }
	if (gx == 0 || gy == 0 || gz == 0 || bx == 0 || by == 0 || bz == 0 || bx * by * bz > 1024) return CUDA_ERROR_INVALID_VALUE;
	CUdeviceptr matrix = *(CUdeviceptr *) kp[0], queries = *(CUdeviceptr *) kp[1], scores = *(CUdeviceptr *) kp[2];
	unsigned int rows = *(unsigned int *) kp[3], dim = *(unsigned int *) kp[4], nq = *(unsigned int *) kp[5];
	LOG("args matrix=0x%llx queries=0x%llx scores=0x%llx rows=%u dim=%u nq=%u", matrix, queries, scores, rows, dim, nq);
	if (!in_alloc(matrix, (size_t) rows * dim * 4) || !in_alloc(queries, (size_t) nq * dim * 4) || !in_alloc(scores, (size_t) nq * rows * 4)) { BAD("kernel args out of allocations"); return CUDA_ERROR_ILLEGAL_ADDRESS; }
	if ((unsigned long long) gx * (bx / 32) < 1) return CUDA_ERROR_INVALID_VALUE;
	const float *M = (const float *) (uintptr_t) matrix, *Q = (const float *) (uintptr_t) queries; float *S = (float *) (uintptr_t) scores;
	for (unsigned q = 0; q < nq; q++) for (unsigned long long rr = 0; rr < rows; rr++) { float acc = 0; for (unsigned i = 0; i < dim; i++) acc += M[rr * dim + i] * Q[(unsigned long long) q * dim + i]; S[(unsigned long long) q * rows + rr] = acc; }
	return CUDA_SUCCESS;
}
CUresult cuGetErrorName(CUresult e, const char **p) {
	switch (e) {
	case CUDA_SUCCESS: *p = "CUDA_SUCCESS"; return 0;
	case CUDA_ERROR_INVALID_VALUE: *p = "CUDA_ERROR_INVALID_VALUE"; return 0;
	case CUDA_ERROR_OUT_OF_MEMORY: *p = "CUDA_ERROR_OUT_OF_MEMORY"; return 0;
	case CUDA_ERROR_NOT_INITIALIZED: *p = "CUDA_ERROR_NOT_INITIALIZED"; return 0;
	case CUDA_ERROR_NO_DEVICE: *p = "CUDA_ERROR_NO_DEVICE"; return 0;
	case CUDA_ERROR_INVALID_CONTEXT: *p = "CUDA_ERROR_INVALID_CONTEXT"; return 0;
	case CUDA_ERROR_INVALID_PTX: *p = "CUDA_ERROR_INVALID_PTX"; return 0;
	case CUDA_ERROR_INVALID_HANDLE: *p = "CUDA_ERROR_INVALID_HANDLE"; return 0;
	case CUDA_ERROR_NOT_FOUND: *p = "CUDA_ERROR_NOT_FOUND"; return 0;
	case CUDA_ERROR_ILLEGAL_ADDRESS: *p = "CUDA_ERROR_ILLEGAL_ADDRESS"; return 0;
	case CUDA_ERROR_NOT_READY: *p = "CUDA_ERROR_NOT_READY"; return 0;
	default: *p = NULL; return CUDA_ERROR_INVALID_VALUE;
	}
}
