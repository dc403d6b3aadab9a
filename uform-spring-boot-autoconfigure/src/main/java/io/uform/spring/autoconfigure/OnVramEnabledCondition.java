package io.uform.spring.autoconfigure;

import java.util.List;

import org.jspecify.annotations.Nullable;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.boot.context.properties.source.ConfigurationProperty;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

import io.uform.GpuDevice;
import io.uform.GpuVendor;
import io.uform.Uform;
import io.uform.spring.autoconfigure.UformProperties.VramEnabled;

/**
 * Whether to make the VRAM executor's beans, from {@code uform.vram.enabled}: {@code true} always
 * (startup then fails without a GPU, saying what discovery found), {@code false} never, and
 * {@code auto} (the default) only where this process sees a GPU a VRAM executor runs on (NVIDIA, or
 * simulated devices; {@link GpuVendor#runsVramExecutors()}), so that the same application runs on
 * machines with and without one, and on one with only AMD GPUs, which this version lists but cannot
 * run a VRAM executor on yet.
 */
class OnVramEnabledCondition extends SpringBootCondition {

	/** The property. */
	static final String PROPERTY = "uform.vram.enabled";

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		return outcome(context.getEnvironment());
	}

	/** The outcome in this environment (also what an AOT-processed application's start compares with). */
	static ConditionOutcome outcome(Environment environment) {
		return switch (Setting.of(environment).value()) {
			case TRUE -> ConditionOutcome.match("uform.vram.enabled is true");
			case FALSE -> ConditionOutcome.noMatch("uform.vram.enabled is false");
			case AUTO -> auto(Uform.gpuDevices());
		};
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

	/**
	 * {@code uform.vram.enabled} as an environment sets it: bound to {@link VramEnabled} as
	 * {@link UformProperties} binds it, and as it was written, with where. The condition, the AOT check
	 * and the failure reports all read it here.
	 * @param value the bound value; {@code auto} where unset, or where the value does not bind (the
	 *        properties' binding reports that, naming it)
	 * @param property the property as set, or {@code null} where no source sets it
	 */
	record Setting(VramEnabled value, @Nullable ConfigurationProperty property) {

		static Setting of(Environment environment) {
			VramEnabled value;
			try {
				value = Binder.get(environment).bind(PROPERTY, VramEnabled.class).orElse(VramEnabled.AUTO);
			}
			catch (BindException ex) {
				value = VramEnabled.AUTO;
			}
			return new Setting(value, ConfiguredProperties.find(environment, PROPERTY));
		}

		/** The value as written, {@code auto} where unset. */
		String written() {
			return (this.property != null) ? String.valueOf(this.property.getValue()).trim() : "auto";
		}

		/** Why {@code uformVramExecutor} was not made, naming the setting and where it was set. */
		String whyNoExecutor() {
			String origin = ConfiguredProperties.setIn(this.property);
			if (this.value == VramEnabled.FALSE) {
				return "uform.vram.enabled = false" + origin + " turns it off. Remove that setting (auto, the default, "
						+ "makes the executor where a GPU is seen) or set it to true";
			}
			return "uform.vram.enabled is " + ((this.property != null) ? written() + origin : "auto (the default)")
					+ " and this process sees no GPU a VRAM executor runs on (NVIDIA, or simulated devices). Run where "
					+ "the GPUs are visible and set uform.vram.enabled=true so that startup says what discovery found, "
					+ "or for development opt in to simulated devices with uform.devices.simulated=1";
		}
	}
}
