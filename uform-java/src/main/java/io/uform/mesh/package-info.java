/**
 * The mesh's rendezvous: the processes of one multi-host run meet through files in a directory every
 * host sees ({@link io.uform.mesh.FileRendezvous}, which documents the protocol and its files), each
 * announcing itself with a {@link io.uform.mesh.MemberRecord}. {@link io.uform.Mesh} is the public
 * entry point; see {@code docs/mesh.md}.
 */
package io.uform.mesh;
