# shellcheck shell=bash
# What the slurm.conf of both test clusters shares (tools/slurm-localhost.sh: one node on this
# machine; tools/onebox/slurm.sh: hosts in namespaces): daemons as root, munge, no cgroups, no
# accounting, cons_tres by core, PMIx when Slurm has it. Sourced by both; each writes its own
# names, ports, paths, timeouts and nodes around slurm_conf_shared's lines.

slurm_mpi_default() {  # pmix when Slurm has the plugin (srun starts Open MPI ranks directly)
  if ls /usr/lib/x86_64-linux-gnu/slurm-wlm/mpi_pmix.so /usr/lib64/slurm/mpi_pmix.so /usr/lib/slurm/mpi_pmix.so 2>/dev/null | grep -q .; then
    echo pmix
  else
    echo none
  fi
}

slurm_conf_shared() {  # the shared lines, on stdout
  cat <<CONF
SlurmUser=root
SlurmdUser=root
AuthType=auth/munge
CredType=cred/munge
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
JobCompType=jobcomp/none
SchedulerType=sched/backfill
SelectType=select/cons_tres
SelectTypeParameters=CR_Core
SlurmdParameters=config_overrides
MpiDefault=$(slurm_mpi_default)
ReturnToService=2
InactiveLimit=0
SlurmctldTimeout=30
SlurmdTimeout=30
CONF
}
