package io.uform.spring.autoconfigure;

import java.util.List;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.type.AnnotatedTypeMetadata;

import io.uform.GpuDevice;
import io.uform.Uform;

/**
 * Whether to make the VRAM executor's beans, from {@code uform.vram.enabled}: {@code true} always
 * (startup then fails without a GPU, saying what discovery found), {@code false} never, and
 * {@code auto} (the default) only where this process sees a GPU, so that the same application runs
 * on machines with and without one.
 */
class OnVramEnabledCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		String enabled = context.getEnvironment().getProperty("uform.vram.enabled", "auto").trim();
		if (enabled.equalsIgnoreCase("true")) {
			return ConditionOutcome.match("uform.vram.enabled is true");
		}
		if (enabled.equalsIgnoreCase("false")) {
			return ConditionOutcome.noMatch("uform.vram.enabled is false");
		}
		List<GpuDevice> devices = Uform.gpuDevices();
		return devices.isEmpty() ? ConditionOutcome.noMatch("uform.vram.enabled is auto and this process sees no GPU")
				: ConditionOutcome.match("uform.vram.enabled is auto and this process sees " + devices.size() + " GPU(s)");
	}
}
