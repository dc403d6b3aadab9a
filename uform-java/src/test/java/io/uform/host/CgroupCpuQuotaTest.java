package io.uform.host;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatIllegalArgumentException;

class CgroupCpuQuotaTest {

	@Test
	void v1DockerMountShowsTheContainersOwnCgroup() {
		assertThat(CgroupCpuQuota.read(Fixtures.root("cgroup-v1-docker-quota"))).hasValueSatisfying((quota) -> {
			assertThat(quota.quotaMicros()).isEqualTo(250_000);
			assertThat(quota.periodMicros()).isEqualTo(100_000);
			assertThat(quota.cpus()).isEqualTo(3);
			assertThat(quota.source()).endsWith("cpu,cpuacct/cpu.cfs_quota_us");
		});
	}

	@Test
	void v2NamespacedContainer() {
		assertThat(CgroupCpuQuota.read(Fixtures.root("cgroup-v2-container-no-numa")))
			.hasValueSatisfying((quota) -> assertThat(quota.cpus()).isEqualTo(2));
	}

	@Test
	void v2ParentLimitBindsTheChild() {
		assertThat(CgroupCpuQuota.read(Fixtures.root("numa-container-cpuset")))
			.hasValueSatisfying((quota) -> assertThat(quota.quotaMicros()).isEqualTo(150_000));
	}

	@Test
	void unlimitedEverywhereIsNoQuota() {
		assertThat(CgroupCpuQuota.read(Fixtures.root("numa-two-socket"))).isEmpty();
		assertThat(CgroupCpuQuota.read(Fixtures.root("local-epyc-zen4"))).isEmpty();
		assertThat(CgroupCpuQuota.read(Fixtures.root("zen4-epyc-9654"))).isEmpty();
	}

	@Test
	void hybridHostTakesTheV1CpuControllerOverTheUnifiedTree(@TempDir Path root) throws Exception {
		write(root, "proc/self/cgroup", "1:cpu:/batch\n0::/batch\n");
		write(root, "proc/self/mountinfo", "32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n"
				+ "41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n");
		write(root, "sys/fs/cgroup/cpu/batch/cpu.cfs_quota_us", "50000\n");
		write(root, "sys/fs/cgroup/cpu/batch/cpu.cfs_period_us", "100000\n");
		write(root, "sys/fs/cgroup/unified/batch/cpu.max", "400000 100000\n");
		assertThat(CgroupCpuQuota.read(root)).hasValueSatisfying((quota) -> {
			assertThat(quota.cpus()).isEqualTo(1);
			assertThat(quota.source()).endsWith("cpu.cfs_quota_us");
		});
	}

	@Test
	void withoutProcFilesTheUsualV2PlaceIsRead(@TempDir Path root) throws Exception {
		write(root, "sys/fs/cgroup/cpu.max", "350000 100000\n");
		assertThat(CgroupCpuQuota.read(root)).hasValueSatisfying((quota) -> assertThat(quota.cpus()).isEqualTo(4));
	}

	@Test
	void mountPointsWithEscapedSpaces(@TempDir Path root) throws Exception {
		write(root, "proc/self/cgroup", "0::/\n");
		write(root, "proc/self/mountinfo", "35 24 0:30 / /cg\\040roups rw - cgroup2 cgroup2 rw\n");
		write(root, "cg roups/cpu.max", "100000 100000\n");
		assertThat(CgroupCpuQuota.read(root)).hasValueSatisfying((quota) -> assertThat(quota.cpus()).isEqualTo(1));
	}

	@Test
	void garbageIsNoQuota(@TempDir Path root) throws Exception {
		write(root, "proc/self/cgroup", "0::/\n");
		write(root, "sys/fs/cgroup/cpu.max", "lots 100000\n");
		assertThat(CgroupCpuQuota.read(root)).isEmpty();
	}

	@Test
	void quotaRoundsUpLikeHotSpot() {
		assertThat(new CpuQuota(150_000, 100_000, "x").cpus()).isEqualTo(2);
		assertThat(new CpuQuota(200_000, 100_000, "x").cpus()).isEqualTo(2);
		assertThat(new CpuQuota(1_000, 100_000, "x").cpus()).isEqualTo(1);
		assertThatIllegalArgumentException().isThrownBy(() -> new CpuQuota(-1, 100_000, "x"));
	}

	@Test
	void v1HostReadsTheCpuControllersHierarchyNotTheCpusetOneListedFirst(@TempDir Path root) throws Exception {
		// As a v1 host lists them: cpuset (a controller whose name starts with "cpu") before cpu,cpuacct.
		write(root, "proc/self/cgroup", "12:cpuset:/\n4:cpu,cpuacct:/batch\n1:name=systemd:/batch\n");
		write(root, "proc/self/mountinfo",
				"30 25 0:26 / /sys/fs/cgroup/cpuset rw,nosuid,nodev,noexec,relatime shared:9 - cgroup cgroup rw,cpuset\n"
						+ "31 25 0:27 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:10 - cgroup cgroup "
						+ "rw,cpu,cpuacct\n");
		write(root, "sys/fs/cgroup/cpuset/batch/cpu.cfs_quota_us", "900000\n");
		write(root, "sys/fs/cgroup/cpu,cpuacct/batch/cpu.cfs_quota_us", "200000\n");
		write(root, "sys/fs/cgroup/cpu,cpuacct/batch/cpu.cfs_period_us", "100000\n");
		assertThat(CgroupCpuQuota.read(root)).hasValueSatisfying((quota) -> {
			assertThat(quota.cpus()).isEqualTo(2);
			assertThat(quota.source()).endsWith("cpu,cpuacct/batch/cpu.cfs_quota_us");
		});
	}

	@Test
	void aV1NamedHierarchyWithoutControllersLeavesTheCpuLimitToTheV2Line(@TempDir Path root) throws Exception {
		// A v2 host that also mounts a name=systemd v1 hierarchy (for containers running systemd).
		write(root, "proc/self/cgroup", "1:name=systemd:/init.scope\n0::/app\n");
		write(root, "proc/self/mountinfo",
				"33 25 0:28 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime - cgroup cgroup rw,xattr,name=systemd\n"
						+ "34 25 0:29 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime - cgroup2 cgroup2 rw\n");
		write(root, "sys/fs/cgroup/systemd/app/cpu.max", "100000 100000\n");
		write(root, "sys/fs/cgroup/unified/app/cpu.max", "300000 100000\n");
		assertThat(CgroupCpuQuota.read(root)).hasValueSatisfying((quota) -> {
			assertThat(quota.cpus()).isEqualTo(3);
			assertThat(quota.source()).endsWith("unified/app/cpu.max");
		});
	}

	@Test
	void withoutProcFilesTheUsualV1PlaceIsReadWhereV2HasNoLimit(@TempDir Path root) throws Exception {
		write(root, "sys/fs/cgroup/cpu/cpu.cfs_quota_us", "50000\n");
		write(root, "sys/fs/cgroup/cpu/cpu.cfs_period_us", "100000\n");
		assertThat(CgroupCpuQuota.read(root)).hasValueSatisfying((quota) -> {
			assertThat(quota.quotaMicros()).isEqualTo(50_000);
			assertThat(quota.source()).endsWith("cpu/cpu.cfs_quota_us");
		});
	}

	@Test
	void aV1CpuLineWithoutMountinfoReadsTheUsualCpuMountOrFindsNoLimit(@TempDir Path root) throws Exception {
		write(root, "proc/self/cgroup", "3:cpu,cpuacct:/docker/4f1e\n");
		assertThat(CgroupCpuQuota.read(root)).isEmpty();
		write(root, "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_quota_us", "300000\n");
		write(root, "sys/fs/cgroup/cpu,cpuacct/cpu.cfs_period_us", "100000\n");
		assertThat(CgroupCpuQuota.read(root)).hasValueSatisfying((quota) -> assertThat(quota.cpus()).isEqualTo(3));
	}

	@Test
	void theTightestLimitWinsWhetherOnTheCgroupOrOnAParent(@TempDir Path root) throws Exception {
		write(root, "proc/self/cgroup", "0::/pod/app\n");
		write(root, "proc/self/mountinfo", "35 24 0:30 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n");
		write(root, "sys/fs/cgroup/pod/app/cpu.max", "400000 100000\n");
		write(root, "sys/fs/cgroup/pod/cpu.max", "100000 100000\n");
		assertThat(CgroupCpuQuota.read(root)).hasValueSatisfying((quota) -> {
			assertThat(quota.cpus()).isEqualTo(1);
			assertThat(quota.source()).endsWith("pod/cpu.max");
		});
		write(root, "sys/fs/cgroup/pod/app/cpu.max", "50000 100000\n");
		assertThat(CgroupCpuQuota.read(root)).hasValueSatisfying((quota) -> {
			assertThat(quota.quotaMicros()).isEqualTo(50_000);
			assertThat(quota.source()).endsWith("pod/app/cpu.max");
		});
	}

	@Test
	void aMountShowingASubtreeMapsTheCgroupPathBelowItsRoot(@TempDir Path root) throws Exception {
		// A nested container: the mount shows the hierarchy from /lxc/c1 down, the process is in /lxc/c1/app.
		write(root, "proc/self/cgroup", "0::/lxc/c1/app\n");
		write(root, "proc/self/mountinfo", "40 30 0:35 /lxc/c1 /sys/fs/cgroup rw,relatime - cgroup2 cgroup2 rw\n");
		write(root, "sys/fs/cgroup/app/cpu.max", "200000 100000\n");
		assertThat(CgroupCpuQuota.read(root)).hasValueSatisfying((quota) -> {
			assertThat(quota.cpus()).isEqualTo(2);
			assertThat(quota.source()).endsWith("app/cpu.max");
		});
	}

	@Test
	void aZeroQuotaOrPeriodIsNoLimitRatherThanAFailure(@TempDir Path root) throws Exception {
		write(root, "proc/self/cgroup", "0::/\n");
		write(root, "sys/fs/cgroup/cpu.max", "0 100000\n");
		assertThat(CgroupCpuQuota.read(root)).isEmpty();
		write(root, "sys/fs/cgroup/cpu.max", "100000 0\n");
		assertThat(CgroupCpuQuota.read(root)).isEmpty();
	}

	private static void write(Path root, String file, String text) throws Exception {
		Path path = root.resolve(file);
		Files.createDirectories(path.getParent());
		Files.writeString(path, text);
	}
}
