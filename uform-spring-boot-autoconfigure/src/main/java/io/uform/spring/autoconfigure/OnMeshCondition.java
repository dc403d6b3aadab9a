package io.uform.spring.autoconfigure;

import org.springframework.boot.autoconfigure.condition.ConditionOutcome;
import org.springframework.boot.autoconfigure.condition.SpringBootCondition;
import org.springframework.boot.context.properties.bind.BindException;
import org.springframework.boot.context.properties.bind.Binder;
import org.springframework.context.annotation.ConditionContext;
import org.springframework.core.env.Environment;
import org.springframework.core.type.AnnotatedTypeMetadata;

import io.uform.MeshLauncher;

/**
 * Whether this process is meant to join a mesh: {@code uform.mesh.host-domain-count} is set, or
 * {@code uform.mesh.directory} is set and the launcher ({@code uform.mesh.launcher}) places the
 * process in a run. The directory is required for the second: running under {@code srun} or in a
 * Kubernetes Job alone never makes a mesh.
 */
class OnMeshCondition extends SpringBootCondition {

	@Override
	public ConditionOutcome getMatchOutcome(ConditionContext context, AnnotatedTypeMetadata metadata) {
		return outcome(context.getEnvironment());
	}

	/** The outcome in this environment (also what an AOT-processed application's start compares with). */
	static ConditionOutcome outcome(Environment environment) {
		Binder binder = Binder.get(environment);
		if (binder.bind("uform.mesh.host-domain-count", String.class).isBound()) {
			return ConditionOutcome.match("uform.mesh.host-domain-count is set");
		}
		if (!UformMeshSources.hasDirectory(environment)) {
			return ConditionOutcome.noMatch("neither uform.mesh.host-domain-count nor uform.mesh.directory is set");
		}
		MeshLauncher launcher;
		try {
			launcher = binder.bind(UformMeshSources.LAUNCHER_PROPERTY, MeshLauncher.class).orElse(MeshLauncher.AUTO);
		}
		catch (BindException ex) {
			// The properties' own binding reports the bad value, with its origin.
			return ConditionOutcome.match("uform.mesh.directory is set, and uform.mesh.launcher does not bind");
		}
		if (UformMeshSources.launcherPlacesThisProcess(launcher, environment)) {
			return ConditionOutcome.match("uform.mesh.directory is set, and the " + launcher.label()
					+ " launcher's variables place this process in a run");
		}
		return ConditionOutcome.noMatch("uform.mesh.directory is set, but uform.mesh.host-domain-count is not and the "
				+ launcher.label() + " launcher's variables place this process in no run");
	}
}
