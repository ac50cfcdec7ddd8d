SELECT csq_master.id, csq_master.val, (SELECT MAX(csq_detail.score) FROM csq_detail WHERE csq_detail.ref_id = csq_master.id) AS max_score FROM csq_master WHERE csq_master.val > 3000;
