package io.uform;

import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

class MeshLauncherTest {

	private static final Map<String, String> SRUN_TASK = Map.of("SLURM_PROCID", "2", "SLURM_NTASKS", "4",
			"SLURM_JOB_ID", "1234", "SLURM_STEP_ID", "0", "SLURM_NTASKS_PER_NODE", "1");

	@Test
	void anSrunTaskGivesItsIndexCountAndAJobNamedAfterItsStep() {
		MeshLaunch launch = MeshLauncher.AUTO.read(SRUN_TASK);

		assertThat(launch).isEqualTo(new MeshLaunch(MeshLauncher.SLURM, 2, "SLURM_PROCID", 4, "SLURM_NTASKS",
				"slurm-1234.0", "SLURM_JOB_ID, SLURM_STEP_ID"));
		assertThat(launch.fill(MeshOptions.defaults())).isEqualTo(new MeshOptions(2, 4, null, null, "slurm-1234.0", null));
	}

	@Test
	void explicitOptionsWinOverTheLauncherAndTheDirectoryIsNeverTakenFromIt() {
		Map<String, String> environment = Map.of("SLURM_PROCID", "2", "SLURM_NTASKS", "4", "SLURM_JOB_ID", "1234",
				"SLURM_STEP_ID", "0", "UFORM_MESH_DIRECTORY", "/shared/uform");
		MeshOptions own = new MeshOptions(1, 2, 8, null, "mine", Duration.ofSeconds(5));

		assertThat(MeshLauncher.AUTO.read(environment).fill(own)).isEqualTo(own);
		assertThat(MeshLauncher.AUTO.read(environment).fill(MeshOptions.defaults()).directory()).isNull();
	}

	@Test
	void theBatchScriptOfAnSbatchJobIsNotATaskAndSaysToUseSrun() {
		// What sbatch -n 3 gives its script: the job's task count and PROCID 0, but no step.
		Map<String, String> batchScript = Map.of("SLURM_PROCID", "0", "SLURM_NTASKS", "3", "SLURM_JOB_ID", "4");

		assertThatThrownBy(() -> MeshLauncher.AUTO.read(batchScript)).isInstanceOf(UformException.class)
			.hasMessageContaining("SLURM_PROCID = 0")
			.hasMessageContaining("SLURM_STEP_ID is not")
			.hasMessageContaining("srun");
	}

	@Test
	void aSlurmStepWithoutTheTaskCountNamesBothVariables() {
		Map<String, String> noCount = Map.of("SLURM_PROCID", "1", "SLURM_JOB_ID", "9", "SLURM_STEP_ID", "0");

		assertThatThrownBy(() -> MeshLauncher.SLURM.read(noCount)).isInstanceOf(UformException.class)
			.hasMessageContaining("half set")
			.hasMessageContaining("SLURM_PROCID = 1 is set, and SLURM_NTASKS is not");
	}

	@Test
	void anIndexedJobPodGivesItsIndexAndTheManifestsCountAndJobName() {
		Map<String, String> pod = Map.of("JOB_COMPLETION_INDEX", "3", "UFORM_MESH_HOST_DOMAIN_COUNT", "4",
				"UFORM_MESH_JOB", "uform-train");

		MeshLaunch launch = MeshLauncher.AUTO.read(pod);

		assertThat(launch.launcher()).isEqualTo(MeshLauncher.KUBERNETES);
		assertThat(launch.fill(MeshOptions.defaults())).isEqualTo(new MeshOptions(3, 4, null, null, "uform-train", null));
	}

	@Test
	void aPodWithTheIndexAloneFailsNamingTheIndexTheCountVariableAndCompletions() {
		MeshLaunch launch = MeshLauncher.KUBERNETES.read(Map.of("JOB_COMPLETION_INDEX", "3"));

		assertThatThrownBy(() -> launch.fill(MeshOptions.defaults())).isInstanceOf(UformException.class)
			.hasMessageContaining("JOB_COMPLETION_INDEX = 3")
			.hasMessageContaining("UFORM_MESH_HOST_DOMAIN_COUNT")
			.hasMessageContaining("completions")
			.hasMessageContaining("uform.mesh.host-domain-count");
		// A count set in the options completes it; then the job name is what is missing.
		assertThatThrownBy(() -> launch.fill(MeshOptions.defaults().withHostDomainCount(4)))
			.hasMessageContaining("UFORM_MESH_JOB")
			.hasMessageContaining("batch.kubernetes.io/job-name");
		assertThat(launch.fill(MeshOptions.defaults().withHostDomainCount(4).withJob("run-42")))
			.isEqualTo(new MeshOptions(3, 4, null, null, "run-42", null));
	}

	@Test
	void rankAndWorldSizeGiveIndexAndCountAndTheJobMustBeSet() {
		MeshLaunch launch = MeshLauncher.AUTO.read(Map.of("RANK", "1", "WORLD_SIZE", "2", "LOCAL_RANK", "0"));

		assertThat(launch.launcher()).isEqualTo(MeshLauncher.ENV);
		assertThatThrownBy(() -> launch.fill(MeshOptions.defaults())).isInstanceOf(UformException.class)
			.hasMessageContaining("RANK = 1")
			.hasMessageContaining("uform.mesh.job");
		assertThat(launch.fill(MeshOptions.defaults().withJob("run-7").withDirectory(Path.of("/shared"))))
			.isEqualTo(new MeshOptions(1, 2, null, Path.of("/shared"), "run-7", null));
	}

	@Test
	void aRankWithoutAWorldSizeNamesBothAndTheFix() {
		assertThatThrownBy(() -> MeshLauncher.AUTO.read(Map.of("RANK", "0"))).isInstanceOf(UformException.class)
			.hasMessageContaining("RANK = 0 is set, and WORLD_SIZE is not")
			.hasMessageContaining("set both");
		assertThatThrownBy(() -> MeshLauncher.AUTO.read(Map.of("WORLD_SIZE", "8")))
			.hasMessageContaining("WORLD_SIZE = 8 is set, and RANK is not");
	}

	@Test
	void aCountFromTheLauncherWithAnExplicitIndexOutsideItFails() {
		MeshLaunch launch = MeshLauncher.ENV.read(Map.of("RANK", "0", "WORLD_SIZE", "2"));

		assertThatThrownBy(() -> launch.fill(MeshOptions.defaults().withHostDomainIndex(5).withJob("j")))
			.hasMessageContaining("index 5 is not in [0, 2)")
			.hasMessageContaining("WORLD_SIZE");
	}

	@Test
	void noLauncherLeavesTheOptionsAsTheyAre() {
		MeshOptions own = MeshOptions.defaults().withDirectory(Path.of("/shared"));

		assertThat(MeshLauncher.AUTO.read(Map.of("HOME", "/root"))).isEqualTo(MeshLaunch.none());
		assertThat(MeshLauncher.AUTO.read(Map.of()).fill(own)).isEqualTo(own);
		assertThat(MeshLauncher.NONE.read(SRUN_TASK).fill(own)).isEqualTo(own);
	}

	@Test
	void aChosenLauncherWhoseVariablesAreMissingSaysHowToStartTheProcesses() {
		assertThatThrownBy(() -> MeshLauncher.SLURM.read(Map.of("RANK", "0", "WORLD_SIZE", "1")))
			.isInstanceOf(UformException.class)
			.hasMessageContaining("slurm")
			.hasMessageContaining("SLURM_PROCID")
			.hasMessageContaining("srun");
	}

	@Test
	void twoLaunchersThatAgreeAreOneAndTwoThatDisagreeMustBeChosenBetween() {
		Map<String, String> agreeing = new java.util.HashMap<>(SRUN_TASK);
		agreeing.putAll(Map.of("RANK", "2", "WORLD_SIZE", "4"));
		assertThat(MeshLauncher.AUTO.read(agreeing).launcher()).isEqualTo(MeshLauncher.SLURM);

		Map<String, String> disagreeing = new java.util.HashMap<>(SRUN_TASK);
		disagreeing.putAll(Map.of("RANK", "5", "WORLD_SIZE", "8"));
		assertThatThrownBy(() -> MeshLauncher.AUTO.read(disagreeing)).isInstanceOf(UformException.class)
			.hasMessageContaining("slurm says index 2 of 4 (SLURM_PROCID, SLURM_NTASKS)")
			.hasMessageContaining("env says index 5 of 8 (RANK, WORLD_SIZE)")
			.hasMessageContaining("uform.mesh.launcher");
		assertThat(MeshLauncher.ENV.read(disagreeing).hostDomainIndex()).isEqualTo(5);
	}

	@Test
	void aVariableThatIsNotANumberIsNamedWithItsValue() {
		assertThatThrownBy(() -> MeshLauncher.AUTO.read(Map.of("JOB_COMPLETION_INDEX", "three")))
			.isInstanceOf(UformException.class)
			.hasMessageContaining("JOB_COMPLETION_INDEX = 'three' is not a whole number");
	}
}
