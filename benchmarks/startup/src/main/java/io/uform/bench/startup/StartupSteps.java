package io.uform.bench.startup;

import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.springframework.boot.context.metrics.buffering.BufferingApplicationStartup;
import org.springframework.boot.context.metrics.buffering.StartupTimeline.TimelineEvent;
import org.springframework.core.metrics.StartupStep;

/**
 * Where a start's time went, by Spring's own startup steps: the few that the uform starter can
 * lengthen, so that a run with it and one without can be compared step by step. Recorded with
 * {@link BufferingApplicationStartup} only when {@code -Dio.uform.bench.steps=true} (a name outside
 * {@code uform.*}, which the starter would report as an unknown key), since recording every step
 * costs a little time itself, alike with and without the starter.
 *
 * <p>Every figure is wall time on the main thread, each step's children included:
 * <ul>
 * <li>{@code env_ms}: {@code spring.boot.application.environment-prepared} (environment post-processors,
 * uform's unknown-key check among them);</li>
 * <li>{@code parse_ms}: {@code spring.context.config-classes.parse} (reading and filtering the
 * auto-configuration classes and their conditions);</li>
 * <li>{@code refresh_ms}: {@code spring.context.refresh} (the whole refresh, the web server's start
 * included);</li>
 * <li>{@code uform_beans_ms}: {@code spring.beans.instantiate} of the beans whose name starts with
 * {@code uform} or names a {@code io.uform} class, counting a bean made inside another one's step
 * (a config made for its executor) once, within the outer one.</li>
 * </ul>
 * {@link #beanLine} gives each of those beans' own step, for the log of a run.
 */
final class StartupSteps {

	/** The system property that turns recording on. */
	static final String PROPERTY = "io.uform.bench.steps";

	private static final String[] NAMES = { "env_ms", "parse_ms", "refresh_ms", "uform_beans_ms" };

	private StartupSteps() {
	}

	/**
	 * A recorder to give {@code SpringApplication}, or null when recording is off.
	 * @return the recorder, or null
	 */
	static BufferingApplicationStartup recorderIfAsked() {
		return Boolean.getBoolean(PROPERTY) ? new BufferingApplicationStartup(20_000) : null;
	}

	/**
	 * The {@code name=value} pairs for the report line: milliseconds with one decimal, or {@code -}
	 * for each when nothing was recorded.
	 * @param recorder the recorder, or null
	 * @return the pairs, space-separated
	 */
	static String fields(BufferingApplicationStartup recorder) {
		Map<String, Long> nanos = (recorder != null) ? measure(recorder.getBufferedTimeline().getEvents()) : Map.of();
		StringBuilder line = new StringBuilder();
		for (String name : NAMES) {
			Long value = nanos.get(name);
			line.append(' ').append(name).append('=')
				.append((value != null) ? String.format(java.util.Locale.ROOT, "%.1f", value / 1e6) : "-");
		}
		return line.substring(1);
	}

	/**
	 * A line of its own for the run's log, {@code UFORM_BEAN_STEPS <bean>=<ms> ...}: the
	 * {@code spring.beans.instantiate} step of each uform bean (its children included, so a config
	 * made for its executor counts in both), in the order the steps ended; only the tag when there was
	 * none; null when steps were not recorded.
	 * @param recorder the recorder, or null
	 * @return the line, or null
	 */
	static String beanLine(BufferingApplicationStartup recorder) {
		if (recorder == null) {
			return null;
		}
		StringBuilder line = new StringBuilder("UFORM_BEAN_STEPS");
		for (TimelineEvent event : recorder.getBufferedTimeline().getEvents()) {
			StartupStep step = event.getStartupStep();
			if (step.getName().equals("spring.beans.instantiate") && isUformBean(step)) {
				for (StartupStep.Tag tag : step.getTags()) {
					if (tag.getKey().equals("beanName")) {
						line.append(' ').append(tag.getValue()).append('=')
							.append(String.format(java.util.Locale.ROOT, "%.2f", event.getDuration().toNanos() / 1e6));
					}
				}
			}
		}
		return line.toString();
	}

	private static Map<String, Long> measure(List<TimelineEvent> events) {
		Map<String, Long> nanos = new HashMap<>();
		for (String name : NAMES) {
			nanos.put(name, 0L);
		}
		// Events come in the order their steps ended, so a child comes before its parent: find the
		// uform bean steps first, then count only those whose parent is not one of them.
		Set<Long> uformSteps = new HashSet<>();
		Map<Long, Long> parentOf = new HashMap<>();
		for (TimelineEvent event : events) {
			StartupStep step = event.getStartupStep();
			parentOf.put(step.getId(), step.getParentId());
			if (step.getName().equals("spring.beans.instantiate") && isUformBean(step)) {
				uformSteps.add(step.getId());
			}
		}
		for (TimelineEvent event : events) {
			StartupStep step = event.getStartupStep();
			long duration = event.getDuration().toNanos();
			String key = switch (step.getName()) {
				case "spring.boot.application.environment-prepared" -> "env_ms";
				case "spring.context.config-classes.parse" -> "parse_ms";
				case "spring.context.refresh" -> "refresh_ms";
				default -> (uformSteps.contains(step.getId()) && !hasUformAncestor(step.getId(), parentOf, uformSteps))
						? "uform_beans_ms" : null;
			};
			if (key != null) {
				nanos.merge(key, duration, Long::sum);
			}
		}
		return nanos;
	}

	private static boolean isUformBean(StartupStep step) {
		for (StartupStep.Tag tag : step.getTags()) {
			if (tag.getKey().equals("beanName")
					&& (tag.getValue().startsWith("uform") || tag.getValue().contains("io.uform."))) {
				return true;
			}
		}
		return false;
	}

	private static boolean hasUformAncestor(long id, Map<Long, Long> parentOf, Set<Long> uformSteps) {
		Long parent = parentOf.get(id);
		// A parent still open when the timeline was read has not ended, so is not in the map: stop there.
		while (parent != null) {
			if (uformSteps.contains(parent)) {
				return true;
			}
			parent = parentOf.get(parent);
		}
		return false;
	}
}
