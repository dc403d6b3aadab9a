package io.uform.gpu;

import java.lang.reflect.Proxy;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import io.uform.UformException;
import io.uform.UformException.Status;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

/**
 * The arena when the driver fails to free a block: a block freed before the failure is never handed
 * out again nor freed twice, and every other block is still freed. The device here is a stand-in that
 * knows which addresses are live and fails the frees it is told to.
 */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class ScratchArenaTest {

	/** Allocates distinct addresses, tracks which are live, fails chosen frees (by call number). */
	private static final class Device {

		final Set<Long> live = new HashSet<>();

		final List<String> errors = new ArrayList<>();

		final Set<Integer> failingFrees = new HashSet<>();

		private long next = 0x1000_0000L;

		private int frees;

		DeviceContext context() {
			return (DeviceContext) Proxy.newProxyInstance(DeviceContext.class.getClassLoader(),
					new Class<?>[] { DeviceContext.class }, (proxy, method, args) -> switch (method.getName()) {
						case "allocate" -> {
							long address = this.next;
							this.next += 1L << 20;
							this.live.add(address);
							yield address;
						}
						case "free" -> {
							long address = (Long) args[0];
							if (this.failingFrees.contains(++this.frees)) {
								throw new UformException(Status.DEVICE_ERROR, "cuMemFree_v2 failed (stand-in)");
							}
							if (!this.live.remove(address)) {
								this.errors.add("double free of 0x" + Long.toHexString(address));
							}
							yield null;
						}
						case "ordinal" -> 0;
						default -> throw new UnsupportedOperationException(method.getName());
					});
		}
	}

	@Test
	void aTrimThatFailsPartwayNeverHandsOutOrFreesAgainWhatItFreed() {
		Device device = new Device();
		ScratchArena arena = new ScratchArena(device.context(), "executor 'test', device 0", 4096);
		long first = arena.reserve(1024);
		long second = arena.reserve(1024);
		arena.release(first);
		arena.release(second);
		// 3 KB does not fit beside the 2 KB held: the arena gives its free blocks back first, and the
		// second of those frees fails.
		device.failingFrees.add(2);
		assertThatThrownBy(() -> arena.reserve(3072)).isInstanceOf(UformException.class)
			.hasMessageContaining("cuMemFree_v2 failed");
		long next = arena.reserve(1024);
		assertThat(device.live).as("the address handed out is live on the device").contains(next);
		arena.close();
		assertThat(device.errors).isEmpty();
	}

	@Test
	void aCloseThatFailsOnOneBlockStillFreesEveryOther() {
		Device device = new Device();
		ScratchArena arena = new ScratchArena(device.context(), "executor 'test', device 0", Long.MAX_VALUE);
		long kept = arena.reserve(256);
		arena.reserve(512);
		arena.reserve(1024);
		arena.release(kept);
		device.failingFrees.add(2);
		assertThatThrownBy(arena::close).isInstanceOf(UformException.class).hasMessageContaining("cuMemFree_v2 failed");
		assertThat(device.live).as("only the block whose free failed").hasSize(1);
		assertThat(arena.figures().reservedBytes()).isZero();
		arena.close();
		assertThat(device.errors).isEmpty();
		assertThatThrownBy(() -> arena.reserve(1)).isInstanceOf(UformException.class)
			.satisfies((ex) -> assertThat(((UformException) ex).status()).isEqualTo(Status.FREED));
	}
}
