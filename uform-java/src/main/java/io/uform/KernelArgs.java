package io.uform;

import java.util.ArrayList;
import java.util.List;

import io.uform.gpu.DeviceContext.KernelArgument;

/**
 * The parameters of one kernel launch, typed and in the kernel's order. Device memory can only be
 * passed as a {@link DeviceBuffer} the executor handed out, never as a raw address, so a launch
 * cannot be given memory of another device, a freed reservation, or a made-up pointer.
 *
 * <pre>{@code
 * lane.launch(kernel, grid, block, 0, KernelArgs.of().buffer(matrix).buffer(queries).buffer(scores)
 *         .u32(rows).u32(dim).u32(queries));
 * }</pre>
 */
public final class KernelArgs {

	private final List<Object> values = new ArrayList<>();

	private KernelArgs() {
	}

	/**
	 * An empty parameter list.
	 * @return a new list
	 */
	public static KernelArgs of() {
		return new KernelArgs();
	}

	/**
	 * A device pointer parameter ({@code float*}, {@code const void*}, ...): 8 bytes.
	 * @param buffer a reservation of the device the kernel runs on, still open at launch
	 * @return this list
	 */
	public KernelArgs buffer(DeviceBuffer buffer) {
		this.values.add(UformException.requireArgument(buffer, "buffer", "pass a DeviceBuffer from lane.reserve(bytes)"));
		return this;
	}

	/**
	 * An {@code unsigned int} parameter: 4 bytes.
	 * @param value read as unsigned; negative values are refused
	 * @return this list
	 */
	public KernelArgs u32(int value) {
		if (value < 0) {
			throw UformException.invalid("u32", value, "an unsigned int parameter takes 0 to 2^31-1 here; use u32Bits for the raw bits");
		}
		return u32Bits(value);
	}

	/**
	 * A 32-bit parameter given by its bits ({@code unsigned int} above 2^31-1, or any 4-byte value).
	 * @param bits the value's bits
	 * @return this list
	 */
	public KernelArgs u32Bits(int bits) {
		this.values.add(new KernelArgument(4, bits & 0xFFFF_FFFFL));
		return this;
	}

	/**
	 * An {@code int} parameter: 4 bytes.
	 * @param value the value
	 * @return this list
	 */
	public KernelArgs i32(int value) {
		return u32Bits(value);
	}

	/**
	 * A {@code float} parameter: 4 bytes.
	 * @param value the value
	 * @return this list
	 */
	public KernelArgs f32(float value) {
		return u32Bits(Float.floatToRawIntBits(value));
	}

	/**
	 * A {@code long long} or {@code unsigned long long} parameter: 8 bytes.
	 * @param value the value's bits
	 * @return this list
	 */
	public KernelArgs i64(long value) {
		this.values.add(new KernelArgument(8, value));
		return this;
	}

	/**
	 * A {@code double} parameter: 8 bytes.
	 * @param value the value
	 * @return this list
	 */
	public KernelArgs f64(double value) {
		return i64(Double.doubleToRawLongBits(value));
	}

	/**
	 * How many parameters.
	 * @return the count
	 */
	public int size() {
		return this.values.size();
	}

	/** The values for the driver, checking every buffer belongs to {@code lane} and is open. */
	KernelArgument[] resolve(DeviceLane lane, String use) {
		KernelArgument[] resolved = new KernelArgument[this.values.size()];
		for (int i = 0; i < resolved.length; i++) {
			Object value = this.values.get(i);
			resolved[i] = (value instanceof DeviceBuffer buffer) ? new KernelArgument(8, buffer.address(lane, use))
					: (KernelArgument) value;
		}
		return resolved;
	}
}
