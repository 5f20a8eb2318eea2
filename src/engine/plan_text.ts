/** The user turn that carries an approved plan forward (decisions.md §7, plan mode). */
export const PLAN_APPROVED = "The plan is approved: carry it out.";
