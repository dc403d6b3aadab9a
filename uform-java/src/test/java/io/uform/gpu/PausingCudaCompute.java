package io.uform.gpu;

import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import com.sun.jna.Pointer;

/**
 * Forwards every driver call to another {@link CudaCompute}, and can hold one call of a given name
 * inside the driver (after {@link CudaRuntime}'s own checks, before the call reaches the delegate),
 * so that a test can free an executor while a user's call is in flight. The hold is outside the
 * delegate's lock: the {@link RecordingCudaCompute} behind it keeps answering other threads.
 */
public final class PausingCudaCompute implements CudaCompute {

	private final CudaCompute delegate;

	private volatile Pause armed;

	PausingCudaCompute(CudaCompute delegate) {
		this.delegate = delegate;
	}

	/**
	 * Holds the next call of that name until {@link Pause#resume()}.
	 * @param call the exported symbol, like {@code cuMemcpyHtoDAsync_v2}
	 * @return the pause, to wait for the call to arrive and to let it go on
	 */
	Pause pauseNext(String call) {
		Pause pause = new Pause(call);
		this.armed = pause;
		return pause;
	}

	private void hold(String call) {
		Pause pause = this.armed;
		if (pause != null && pause.call.equals(call)) {
			this.armed = null;
			pause.arrived.countDown();
			try {
				if (!pause.resumed.await(30, TimeUnit.SECONDS)) {
					throw new AssertionError(call + " was held for 30 s: the test never resumed it");
				}
			}
			catch (InterruptedException ex) {
				Thread.currentThread().interrupt();
			}
		}
	}

	@Override
	public long primaryContextRetain(int device) {
		hold("cuDevicePrimaryCtxRetain");
		return this.delegate.primaryContextRetain(device);
	}

	@Override
	public void primaryContextRelease(int device) {
		hold("cuDevicePrimaryCtxRelease_v2");
		this.delegate.primaryContextRelease(device);
	}

	@Override
	public void setCurrentContext(long context) {
		hold("cuCtxSetCurrent");
		this.delegate.setCurrentContext(context);
	}

	@Override
	public long streamCreate(int flags) {
		hold("cuStreamCreate");
		return this.delegate.streamCreate(flags);
	}

	@Override
	public void streamDestroy(long stream) {
		hold("cuStreamDestroy_v2");
		this.delegate.streamDestroy(stream);
	}

	@Override
	public void streamSynchronize(long stream) {
		hold("cuStreamSynchronize");
		this.delegate.streamSynchronize(stream);
	}

	@Override
	public boolean streamQuery(long stream) {
		hold("cuStreamQuery");
		return this.delegate.streamQuery(stream);
	}

	@Override
	public long eventCreate(int flags) {
		hold("cuEventCreate");
		return this.delegate.eventCreate(flags);
	}

	@Override
	public void eventRecord(long event, long stream) {
		hold("cuEventRecord");
		this.delegate.eventRecord(event, stream);
	}

	@Override
	public boolean eventQuery(long event) {
		hold("cuEventQuery");
		return this.delegate.eventQuery(event);
	}

	@Override
	public void eventDestroy(long event) {
		hold("cuEventDestroy_v2");
		this.delegate.eventDestroy(event);
	}

	@Override
	public long memAlloc(long bytes) {
		hold("cuMemAlloc_v2");
		return this.delegate.memAlloc(bytes);
	}

	@Override
	public void memFree(long address) {
		hold("cuMemFree_v2");
		this.delegate.memFree(address);
	}

	@Override
	public DeviceContext.MemoryInfo memGetInfo() {
		hold("cuMemGetInfo_v2");
		return this.delegate.memGetInfo();
	}

	@Override
	public void memcpyHtoDAsync(long destination, Pointer source, long bytes, long stream) {
		hold("cuMemcpyHtoDAsync_v2");
		this.delegate.memcpyHtoDAsync(destination, source, bytes, stream);
	}

	@Override
	public void memcpyDtoHAsync(Pointer destination, long source, long bytes, long stream) {
		hold("cuMemcpyDtoHAsync_v2");
		this.delegate.memcpyDtoHAsync(destination, source, bytes, stream);
	}

	@Override
	public long moduleLoadData(String ptx) {
		hold("cuModuleLoadDataEx");
		return this.delegate.moduleLoadData(ptx);
	}

	@Override
	public long moduleGetFunction(long module, String name) {
		hold("cuModuleGetFunction");
		return this.delegate.moduleGetFunction(module, name);
	}

	@Override
	public void moduleUnload(long module) {
		hold("cuModuleUnload");
		this.delegate.moduleUnload(module);
	}

	@Override
	public void launchKernel(long function, int gridX, int gridY, int gridZ, int blockX, int blockY, int blockZ,
			int sharedBytes, long stream, DeviceContext.KernelArgument[] arguments) {
		hold("cuLaunchKernel");
		this.delegate.launchKernel(function, gridX, gridY, gridZ, blockX, blockY, blockZ, sharedBytes, stream,
				arguments);
	}

	/** One held call: {@link #awaitArrival()} until it is in the driver, {@link #resume()} to let it go on. */
	public static final class Pause {

		private final String call;

		private final CountDownLatch arrived = new CountDownLatch(1);

		private final CountDownLatch resumed = new CountDownLatch(1);

		Pause(String call) {
			this.call = call;
		}

		/**
		 * Waits until the held call has reached the driver.
		 * @throws InterruptedException when interrupted
		 */
		public void awaitArrival() throws InterruptedException {
			if (!this.arrived.await(30, TimeUnit.SECONDS)) {
				throw new AssertionError("no " + this.call + " reached the driver within 30 s");
			}
		}

		/** Lets the held call go on. */
		public void resume() {
			this.resumed.countDown();
		}
	}
}
