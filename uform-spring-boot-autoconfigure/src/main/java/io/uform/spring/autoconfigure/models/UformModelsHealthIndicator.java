package io.uform.spring.autoconfigure.models;

import java.util.LinkedHashMap;
import java.util.Map;

import org.springframework.boot.health.contributor.AbstractHealthIndicator;
import org.springframework.boot.health.contributor.Health;
import org.springframework.context.ConfigurableApplicationContext;

import io.uform.Executor;

/**
 * Health of the models of {@code uform.models}, contributed as {@code uformModels}: <b>UP</b> while each
 * model is loaded and its executor runs (or drains); <b>DOWN</b>, naming the model, where a model's
 * executor was freed or refuses deferred calls while the application runs, or a model was never
 * loaded; <b>OUT_OF_SERVICE</b> once the context is stopping. Details: each model's executor, its
 * state, dimensions and when it was loaded.
 */
public class UformModelsHealthIndicator extends AbstractHealthIndicator {

	private final ConfigurableApplicationContext context;

	private final ModelReports models;

	/**
	 * Makes the indicator.
	 * @param context the application context whose executor beans the models run on
	 * @param models the configured models
	 */
	public UformModelsHealthIndicator(ConfigurableApplicationContext context, ModelReports models) {
		super("uform models health check failed");
		this.context = context;
		this.models = models;
	}

	@Override
	protected void doHealthCheck(Health.Builder builder) {
		Map<String, Executor> executors = this.context.getBeansOfType(Executor.class, false, false);
		builder.up();
		String down = null;
		for (ModelReport model : this.models.reports().values()) {
			Executor executor = executors.get(model.executor());
			Executor.State state = (executor != null) ? executor.statistics().state() : null;
			Map<String, Object> detail = new LinkedHashMap<>();
			detail.put("executor", model.executor());
			detail.put("executorState", (state != null) ? state.name() : "absent");
			detail.put("dimensions", model.dimensions());
			detail.put("loadedAt", (model.loadedAt() != null) ? model.loadedAt().toString() : "not loaded");
			builder.withDetail(model.name(), detail);
			if (down == null && model.loadedAt() == null) {
				down = "model '" + model.name() + "' is not loaded";
			}
			else if (down == null && (state == null || state == Executor.State.FREED || state == Executor.State.CLOSING)) {
				down = "model '" + model.name() + "' runs on executor bean '" + model.executor() + "', which is "
						+ ((state != null) ? state.name() : "absent") + ": it embeds nothing until the application restarts";
			}
		}
		if (down != null) {
			if (this.context.isRunning()) {
				builder.down().withDetail("reason", down);
			}
			else {
				builder.outOfService().withDetail("reason", "the application is stopping: " + down);
			}
		}
	}
}
