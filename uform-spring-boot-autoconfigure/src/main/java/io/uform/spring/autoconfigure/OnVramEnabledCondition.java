package io.uform.spring.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

import io.uform.GpuDevice;
import io.uform.GpuVendor;
import io.uform.Uform;

/**
 * Whether to make the VRAM executor's beans, from {@code uform.vram.enabled}: {@code true} always
 * (startup then fails without a GPU, saying what discovery found), {@code false} never, and
 * {@code auto} (the default) only where this process sees a GPU a VRAM executor runs on (NVIDIA, or
 * simulated devices; {@link GpuVendor#runsVramExecutors()}), so that the same application runs on
 * machines with and without one, and on one with only AMD GPUs, which this version lists but cannot
 * run a VRAM executor on yet.
 */
class OnVramEnabledCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		return outcome(context.getEnvironment());
	}

	/** The outcome in this environment (also what an AOT-processed application's start compares with). */
	static ConditionOutcome outcome(Environment environment) {
		String enabled = environment.getProperty("uform.vram.enabled", "auto").trim();
		if (enabled.equalsIgnoreCase("true")) {
			return ConditionOutcome.match("uform.vram.enabled is true");
		}
		if (enabled.equalsIgnoreCase("false")) {
			return ConditionOutcome.noMatch("uform.vram.enabled is false");
		}
		return auto(Uform.gpuDevices());
	}

	/** The outcome of {@code auto} on these devices. */
	static ConditionOutcome auto(List<GpuDevice> devices) {
		if (devices.isEmpty()) {
			return ConditionOutcome.noMatch("uform.vram.enabled is auto and this process sees no GPU");
		}
		long runnable = devices.stream().filter((device) -> device.vendor().runsVramExecutors()).count();
		if (runnable == 0) {
			return ConditionOutcome.noMatch("uform.vram.enabled is auto and this process sees "
					+ UformStartupLog.counted(devices.size(), "GPU") + ", none of which a VRAM executor runs on yet ("
					+ devices.stream()
						.map((device) -> device.vendor().name())
						.distinct()
						.toList() + ")");
		}
		return ConditionOutcome.match("uform.vram.enabled is auto and this process sees "
				+ UformStartupLog.counted(runnable, "GPU") + " a VRAM executor runs on");
	}
}
