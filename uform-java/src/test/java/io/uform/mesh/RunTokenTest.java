package io.uform.mesh;

import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

/**
 * The run token that tells a dead peer of this run from an earlier run's leftover: the same in every
 * task of one launch, different in the next (another step, a requeue, a torchrun restart).
 */
class RunTokenTest {

	@Test
	void slurmsJobStepAndRestartMakeTheTokenSoANewStepOrARequeueIsAnotherRun() {
		assertThat(ThisProcess.runToken(Map.of("SLURM_JOB_ID", "42", "SLURM_STEP_ID", "0"))).isEqualTo("slurm:42.0.0");
		assertThat(ThisProcess.runToken(Map.of("SLURM_JOB_ID", "42", "SLURM_STEP_ID", "1")))
			.isNotEqualTo(ThisProcess.runToken(Map.of("SLURM_JOB_ID", "42", "SLURM_STEP_ID", "0")));
		assertThat(ThisProcess.runToken(Map.of("SLURM_JOB_ID", "42", "SLURM_STEP_ID", "0", "SLURM_RESTART_COUNT", "1")))
			.isEqualTo("slurm:42.0.1");
	}

	@Test
	void torchrunsRunIdAndRestartCountMakeTheTokenAndAGivenOneWins() {
		assertThat(ThisProcess.runToken(Map.of("TORCHELASTIC_RUN_ID", "abc", "TORCHELASTIC_RESTART_COUNT", "2")))
			.isEqualTo("torchelastic:abc.2");
		assertThat(ThisProcess.runToken(Map.of("UFORM_MESH_RUN", " mine ", "SLURM_JOB_ID", "42"))).isEqualTo("mine");
	}

	@Test
	void noLauncherNoToken() {
		assertThat(ThisProcess.runToken(Map.of())).isEmpty();
		assertThat(ThisProcess.runToken(Map.of("UFORM_MESH_RUN", "  "))).isEmpty();
	}
}
